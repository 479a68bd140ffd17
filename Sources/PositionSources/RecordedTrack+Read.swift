#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging

extension RecordedTrack {
    /// The kinds of recorded file ``RecordedTrack/read(contentsOf:logger:)`` understands.
    public enum FileFormat: String, Sendable, CaseIterable {
        /// GPX 1.0 or 1.1.
        case gpx
        /// NMEA 0183 sentences, one a line.
        case nmea

        /// The format a file name suggests: `.gpx` is GPX, anything else (`.nmea`, `.log`, `.txt`) NMEA.
        public init(guessingFrom url: URL) {
            self = url.pathExtension.lowercased() == "gpx" ? .gpx : .nmea
        }
    }

    /// Reads a whole GPX or NMEA file (chosen by ``FileFormat/init(guessingFrom:)`` unless given),
    /// skipping and counting malformed input. Throws only when the file cannot be read at all.
    public static func read(
        contentsOf url: URL,
        format: FileFormat? = nil,
        uere: Double = DilutionOfPrecision.defaultUERE,
        logger: Logger
    ) throws(PositionSourceError) -> RecordedTrack {
        switch format ?? FileFormat(guessingFrom: url) {
        case .gpx: try GPXFile.read(contentsOf: url, options: GPXOptions(uere: uere), logger: logger)
        case .nmea: try NMEAFile.read(contentsOf: url, options: NMEAOptions(uere: uere), logger: logger)
        }
    }
}

