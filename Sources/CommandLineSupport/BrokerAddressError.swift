/// Why a `--broker` value was refused.
public enum BrokerAddressError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `mqtt://` or `mqtts://` prefix.
    case missingScheme(String)
    /// A scheme other than mqtt or mqtts.
    case unsupportedScheme(String, String)
    /// The URL has a path.
    case hasPath(String)
    /// The URL carries a user or password (use --username and --password-file).
    case hasCredentials(String)
    /// The host is empty or malformed.
    case badHost(String)
    /// The port is not a number in 1...65535.
    case badPort(String)

    /// A sentence naming the value and the expected form.
    public var description: String {
        switch self {
        case .missingScheme(let text): "The broker '\(text)' needs a scheme: mqtt://HOST:PORT or mqtts://HOST:PORT."
        case let .unsupportedScheme(text, scheme): "The broker '\(text)' uses the scheme '\(scheme)'; use mqtt:// or mqtts://."
        case .hasPath(let text): "The broker '\(text)' has a path; give only mqtt://HOST:PORT."
        case .hasCredentials(let text): "The broker '\(text)' contains credentials; use --username and --password-file instead."
        case .badHost(let text): "The broker '\(text)' has no valid host."
        case .badPort(let text): "The broker '\(text)' has a port outside 1...65535."
        }
    }
}
