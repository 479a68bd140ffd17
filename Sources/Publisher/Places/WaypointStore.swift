#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import WhereaboutsCore
import SystemSupport

/// Keeps the waypoints received by `setWaypoints`, and which places the device is inside, in one
/// small JSON file in the state directory (`places-<user>-<device>.json` beside the outbox).
///
/// - **Atomic.** Each save writes a temporary file, fsyncs it, renames it over the old one and
///   fsyncs the folder: after a `kill -9` or a power cut the file holds the old or the new
///   content, never a mix.
/// - **A damaged file is set aside, never fatal.** A file that does not decode is renamed to
///   `<file>.damaged-<epoch seconds>`, logged at error level with both names, and the publisher
///   starts without command waypoints.
/// - **A failed save changes nothing on disk** (a full disk): logged at error level; the waypoints
///   apply until the publisher stops, and the next save tries again.
struct WaypointStore: Sendable {
    /// What the file holds.
    struct Contents: Sendable, Hashable, Codable {
        /// The format version, 1.
        var version = 1
        /// The waypoints set by command.
        var waypoints: [Place] = []
        /// Keys (lower-cased names) of the places the device is inside.
        var inside: [String] = []
    }

    /// The file.
    let path: String
    private let logger: Logger

    /// A store at `path`.
    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// The stored contents; empty when there is no file yet, or when it was damaged (then set aside).
    func load() -> Contents {
        guard FileManager.default.fileExists(atPath: path) else { return Contents() }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let contents = try JSONDecoder().decode(Contents.self, from: data)
            guard contents.version == 1 else {
                throw StoreProblem(reason: "format version \(contents.version) is not known (1 is)")
            }
            return contents
        } catch {
            setAside(because: error)
            return Contents()
        }
    }

    /// Writes `contents` atomically. Returns false (logged) when it could not.
    @discardableResult
    func save(_ contents: Contents) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            let data = try encoder.encode(contents)
            do { try AtomicFile.write(data, to: path) } catch { throw StoreProblem(reason: error.reason) }
            return true
        } catch {
            logger.error("Could not store the places; they apply until the publisher stops.", metadata: [
                "whereabouts.places.file": "\(path)", "whereabouts.error": "\(error)",
            ])
            return false
        }
    }

    private func setAside(because error: any Error) {
        let aside = "\(path).damaged-\(Int(Date().timeIntervalSince1970))"
        do {
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            logger.error("The stored places file is damaged; set it aside and started without command waypoints.", metadata: [
                "whereabouts.places.file": "\(path)", "whereabouts.places.aside": "\(aside)", "whereabouts.error": "\(error)",
            ])
        } catch let moveError {
            logger.error("The stored places file is damaged and could not be set aside; started without command waypoints.", metadata: [
                "whereabouts.places.file": "\(path)", "whereabouts.error": "\(error)", "whereabouts.move.error": "\(moveError)",
            ])
        }
    }

    /// Why the store could not be read or written.
    struct StoreProblem: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The default file for a user and device: `places-<user>-<device>.json` in the state directory.
    static func defaultPath(stateDirectory: String, user: String, device: String) -> String {
        PathText.appending("places-\(user.lowercased())-\(device.lowercased()).json", to: stateDirectory)
    }
}
