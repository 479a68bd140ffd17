import Foundation
import Logging
import WhereaboutsCore

/// Reads a whole GPX file into memory at once: what `whereabouts-eval` uses.
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
        try RecordedTrack.readWhole(url, source: "gpx", logger: logger) { data, label, counter in
            parse(data, label: label, options: options, rejections: counter)
        }
    }

    /// Reads every valid track point of GPX `data`, counting rejections in `rejections`.
    public static func parse(
        _ data: Data,
        label: String = "gpx",
        options: GPXOptions = GPXOptions(),
        rejections: RejectionCounter
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
        parser.parse(data)
        return RecordedTrack(fixes: fixes, segmentStarts: segmentStarts.isEmpty ? [0] : segmentStarts, rejections: rejections.snapshot)
    }
}
