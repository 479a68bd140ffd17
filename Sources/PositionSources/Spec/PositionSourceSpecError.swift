/// Why a `--source` value could not be understood. Each message says what was wrong and what is
/// accepted instead.
public enum PositionSourceSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part before the first `:` is not one of `gpsd`, `nmea`, `gpx`, `sim`.
    case unknownScheme(String)
    /// `nmea:` or `gpx:` without a path.
    case missingPath(scheme: String)
    /// `sim:` without a scenario, or with one that does not exist.
    case unknownScenario(String)
    /// A host or port in `gpsd://HOST:PORT` that is not valid.
    case invalidAddress(String, reason: String)
    /// An option (`?name=value`) this kind of source does not have.
    case unknownOption(name: String, scheme: String, known: [String])
    /// An option with a value it cannot take.
    case invalidOption(name: String, value: String, expected: String)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case let .unknownScheme(scheme):
            "Unknown position source '\(scheme)'. Use gpsd://HOST:PORT, nmea:PATH (- for stdin), gpx:PATH or sim:SCENARIO."
        case let .missingPath(scheme):
            "The \(scheme) source needs a path, as in \(scheme):/path/to/file\(scheme == "nmea" ? " (or nmea:- for stdin)" : "")."
        case let .unknownScenario(name):
            "Unknown simulator scenario '\(name)'. Use one of: \(SimulationScenario.allCases.map(\.rawValue).joined(separator: ", "))."
        case let .invalidAddress(address, reason):
            "The gpsd address '\(address)' is not valid: \(reason). Use gpsd://HOST:PORT, for example gpsd://localhost:2947."
        case let .unknownOption(name, scheme, known):
            "The \(scheme) source has no option '\(name)'. Its options are: \(known.joined(separator: ", "))."
        case let .invalidOption(name, value, expected):
            "The option \(name)=\(value) is not valid: expected \(expected)."
        }
    }
}
