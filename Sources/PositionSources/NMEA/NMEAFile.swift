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
        try RecordedTrack.readWhole(url, source: "nmea", logger: logger) { data, label, counter in
            parse(data, label: label, options: options, rejections: counter)
        }
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
        // Lines are split on the byte 0x0A and parsed as bytes (CR is trimmed with the whitespace).
        let bytes = [UInt8](data)
        var lineStart = 0
        while lineStart <= bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            assembler.consume(bytes[lineStart..<lineEnd]) { fixes.append($0) }
            lineStart = lineEnd + 1
        }
        assembler.finish { fixes.append($0) }
        return RecordedTrack(fixes: fixes, rejections: rejections.snapshot)
    }
}
