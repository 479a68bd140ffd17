import ArgumentParser
import Foundation
import Logging
import PositionSources
import WhereaboutsCore

/// Reads a recorded track with the right position source: GPX or NMEA by extension, or by
/// sniffing the first bytes when the extension says neither.
enum TrackLoader {
    enum Kind { case gpx, nmea }

    struct Loaded {
        var fixes: [Fix]
        var rejections: [String: Int]
    }

    static func load(path: String, logger: Logger) throws -> Loaded {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ValidationError("Cannot read the track \(path): no such readable file.")
        }
        let kind = try kind(of: url)
        let track: RecordedTrack
        do {
            switch kind {
            case .gpx: track = try GPXFile.read(contentsOf: url, logger: logger)
            case .nmea: track = try NMEAFile.read(contentsOf: url, logger: logger)
            }
        } catch {
            throw ValidationError("Cannot read the track \(path): \(error)")
        }
        var rejections: [String: Int] = [:]
        for (reason, count) in track.rejections.sorted { rejections[reason.rawValue] = count }
        return Loaded(fixes: track.fixes, rejections: rejections)
    }

    static func kind(of url: URL) throws(ValidationError) -> Kind {
        switch url.pathExtension.lowercased() {
        case "gpx", "xml": return .gpx
        case "nmea", "nma", "log", "txt": return .nmea
        default:
            guard let handle = try? FileHandle(forReadingFrom: url) else {
                throw ValidationError("Cannot open the track \(url.path).")
            }
            defer { try? handle.close() }
            let head = String(decoding: (try? handle.read(upToCount: 4096)) ?? Data(), as: UTF8.self)
            if head.contains("<gpx") || head.hasPrefix("<?xml") { return .gpx }
            if head.contains("$GP") || head.contains("$GN") || head.contains("$GL") || head.contains("$GA") { return .nmea }
            throw ValidationError("Cannot tell whether \(url.path) is GPX or NMEA; give it a .gpx or .nmea extension.")
        }
    }
}
