/// Why a position source skipped a piece of its input instead of turning it into a fix.
///
/// Every skipped input is counted under exactly one reason (see ``SourceRejections``), so an
/// operator can tell a broken cable (bad checksums) from a receiver without a fix (no fix) from a
/// badly exported file (missing time).
public enum SourceRejectionReason: String, Error, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// An NMEA sentence whose `*hh` checksum does not match its content (line noise, a bad cable).
    case badChecksum = "bad-checksum"
    /// A line, sentence or element cut short: no checksum, fewer fields than the sentence needs.
    case truncated = "truncated"
    /// A field that should hold a number, a time or a date holds something else.
    case malformedField = "malformed-field"
    /// A position that is not a coordinate: NaN, infinite, latitude beyond ±90 or longitude beyond ±180.
    case invalidCoordinate = "invalid-coordinate"
    /// A measurement that cannot be true: NaN or negative speed, accuracy, or a non-finite altitude.
    case invalidValue = "invalid-value"
    /// A position without a time (a GPX track point without `<time>`, a gpsd TPV without `time`).
    case missingTime = "missing-time"
    /// An NMEA epoch without an RMC sentence to give its date (see `NMEAOptions.carryDate`).
    case missingDate = "missing-date"
    /// The receiver said it has no fix (RMC status V, GGA quality 0, GSA mode 1, gpsd mode 0 or 1).
    case noFix = "no-fix"
    /// A GPX file that stops being well-formed XML; fixes before the fault are kept.
    case malformedXML = "malformed-xml"
    /// A gpsd report that is not the JSON object it should be.
    case malformedJSON = "malformed-json"
    /// An input that holds nothing at all (an empty file).
    case emptyInput = "empty-input"
    /// A line longer than any valid sentence or report (garbage from a wrong baud rate, say).
    case oversizeLine = "oversize-line"
    /// A line that is not an NMEA sentence at all (no leading `$`), such as noise on a serial line.
    case garbage = "garbage"

    /// A short sentence describing the reason, for logs and tables.
    public var description: String {
        switch self {
        case .badChecksum: "NMEA checksum does not match"
        case .truncated: "input cut short or missing required fields"
        case .malformedField: "a field that should be a number, time or date is not"
        case .invalidCoordinate: "coordinate is NaN or out of range"
        case .invalidValue: "speed, accuracy or altitude is NaN or impossible"
        case .missingTime: "position without a time"
        case .missingDate: "NMEA epoch without a date (no RMC)"
        case .noFix: "receiver reports no fix"
        case .malformedXML: "GPX is not well-formed XML"
        case .malformedJSON: "gpsd report is not valid JSON"
        case .emptyInput: "input is empty"
        case .oversizeLine: "line too long to be a sentence or report"
        case .garbage: "line is not an NMEA sentence"
        }
    }
}
