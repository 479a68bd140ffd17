import Foundation
import Logging
import WhereaboutsCore

/// Reads a whole NMEA 0183 log into memory at once: what `whereabouts-eval` uses.
public enum NMEAFile {
    /// Reads every fix of the NMEA log at `url` (see ``NMEASource`` for how epochs become fixes).
    ///
    /// Malformed sentences are skipped and counted. Throws only when the file cannot be read.
    public static func read(
        contentsOf url: URL,
        options: NMEAOptions = NMEAOptions(),
        logger: Logger
    ) throws(PositionSourceError) -> RecordedTrack {
        let data = try Data.readFile(at: url)
        let counter = RejectionCounter(source: "nmea", logger: logger)
        return parse(data, label: url.lastPathComponent, options: options, rejections: counter)
    }

    /// Reads every fix of NMEA `data`, counting rejections in `rejections`.
    public static func parse(
        _ data: Data,
        label: String = "nmea",
        options: NMEAOptions = NMEAOptions(),
        rejections: RejectionCounter
    ) -> RecordedTrack {
        var fixes: [Fix] = []
        var assembler = NMEAEpochAssembler(options: options, rejections: rejections, label: label)
        // Split on the byte 0x0A: as a Swift Character, "\r\n" is one grapheme and not "\n".
        let text = Substring(String(decoding: data, as: UTF8.self))
        for line in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            assembler.consume(Substring(line)) { fixes.append($0) }
        }
        assembler.finish { fixes.append($0) }
        return RecordedTrack(fixes: fixes, rejections: rejections.snapshot)
    }
}
