#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport
import Logging
import WhereaboutsCore

/// A whole recorded track read into memory: its fixes in file order and what was skipped.
public struct RecordedTrack: Sendable, Hashable {
    /// The valid fixes, in the order the file holds them.
    public var fixes: [Fix]
    /// The index in ``fixes`` where each track segment (GPX `<trkseg>`) begins; `[0]` for NMEA.
    package var segmentStarts: [Int]
    /// The input skipped while reading, by reason.
    public var rejections: SourceRejections

    /// Creates a track.
    public init(fixes: [Fix], segmentStarts: [Int] = [0], rejections: SourceRejections = SourceRejections()) {
        self.fixes = fixes
        self.segmentStarts = segmentStarts
        self.rejections = rejections
    }
}

extension RecordedTrack {
    /// Reads the file at `url` and hands its bytes, its name and a fresh rejection counter for
    /// `source` to `parse`: the shared start of ``GPXFile`` and ``NMEAFile``.
    static func readWhole(
        _ url: URL,
        source: String,
        logger: Logger,
        parse: (Data, String, RejectionCounter) -> RecordedTrack
    ) throws(PositionSourceError) -> RecordedTrack {
        let data = try Data.readFile(at: url)
        return parse(data, url.lastPathComponent, RejectionCounter(source: source, logger: logger))
    }
}

extension Data {
    /// The file's bytes, or a ``PositionSourceError/cannotRead(path:reason:)``.
    static func readFile(at url: URL) throws(PositionSourceError) -> Data {
        do {
            return try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw .cannotRead(path: url.path, reason: fileErrorReason(error))
        }
    }
}
