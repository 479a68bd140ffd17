#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The kind of source a fix came from.
public enum FixSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// A GPX file.
    case gpx
    /// NMEA 0183 sentences (file, stdin or serial device).
    case nmea
    /// A gpsd daemon.
    case gpsd
    /// The built-in deterministic simulator.
    case simulator
    /// Received over the wire or otherwise of unknown origin.
    case unknown
}
