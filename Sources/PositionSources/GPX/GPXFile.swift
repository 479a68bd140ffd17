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

/// Reads all the fixes of a GPX file into memory at once (the file itself is read as a stream):
/// what `whereabouts-eval` uses.
public enum GPXFile {
    /// Reads every valid track point of the GPX 1.0 or 1.1 file at `url`.
    ///
    /// Malformed points (see ``SourceRejectionReason``) are skipped and counted; an XML error ends the
    /// reading but keeps the points before it. Throws only when the file cannot be read.
    public static func read(
        contentsOf url: URL,
        options: GPXOptions = GPXOptions(),
        logger: Logger
    ) throws(PositionSourceError) -> RecordedTrack {
        var reader = try FileChunkReader(path: url.path)
        defer { reader.close() }
        let track = collect(label: url.lastPathComponent, options: options, rejections: RejectionCounter(source: "gpx", logger: logger)) {
            $0.parse(reading: { reader.read(into: $0) })
        }
        if let failure = reader.failure { throw failure }
        return track
    }

    /// Reads every valid track point of GPX `data`, counting rejections in `rejections`.
    public static func parse(
        _ data: Data,
        label: String = "gpx",
        options: GPXOptions = GPXOptions(),
        rejections: RejectionCounter
    ) -> RecordedTrack {
        collect(label: label, options: options, rejections: rejections) { $0.parse(data) }
    }

    /// The fixes and segments a parser made by `parse` finds.
    private static func collect(
        label: String,
        options: GPXOptions,
        rejections: RejectionCounter,
        _ parse: (GPXParser) -> Void
    ) -> RecordedTrack {
        var fixes: [Fix] = []
        var segmentStarts: [Int] = []
        var lastSegment = -1
        let parser = GPXParser(options: options, rejections: rejections, label: label) { fix, segment in
            if segment != lastSegment {
                segmentStarts.append(fixes.count)
                lastSegment = segment
            }
            fixes.append(fix)
            return true
        }
        parse(parser)
        return RecordedTrack(fixes: fixes, segmentStarts: segmentStarts.isEmpty ? [0] : segmentStarts, rejections: rejections.snapshot)
    }
}
