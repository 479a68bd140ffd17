/// Where the broker is: `mqtt://HOST[:PORT]` (plain, default port 1883) or `mqtts://HOST[:PORT]`
/// (TLS, default port 8883).
package struct BrokerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address.
    package var host: String
    /// The TCP port.
    package var port: Int
    /// Whether the connection uses TLS.
    package var usesTLS: Bool

    /// Parses a broker URL.
    ///
    /// - Throws: ``BrokerAddressError`` naming what is wrong.
    package init(parsing text: String) throws(BrokerAddressError) {
        let scheme: String
        let rest: Substring
        if let range = text.firstRange(of: "://") {
            scheme = text[..<range.lowerBound].lowercased()
            rest = text[range.upperBound...]
        } else {
            throw .missingScheme(text)
        }
        switch scheme {
        case "mqtt", "tcp": usesTLS = false
        case "mqtts", "ssl", "tls": usesTLS = true
        default: throw .unsupportedScheme(text, scheme)
        }
        var authority = rest
        if let slash = authority.firstIndex(of: "/") {
            guard authority[slash...].allSatisfy({ $0 == "/" }) else { throw .hasPath(text) }
            authority = authority[..<slash]
        }
        guard !authority.contains("@") else { throw .hasCredentials(text) }
        var host = authority
        var port = usesTLS ? 8883 : 1883
        if authority.hasPrefix("[") {  // IPv6 literal
            guard let close = authority.firstIndex(of: "]") else { throw .badHost(text) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65_535).contains(value) else { throw .badPort(text) }
                port = value
            } else if !after.isEmpty {
                throw .badHost(text)
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let value = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(value) else {
                throw .badPort(text)
            }
            port = value
        }
        guard !host.isEmpty, !host.contains(":") || authority.hasPrefix("[") else { throw .badHost(text) }
        self.host = String(host)
        self.port = port
    }

    /// The URL form, `mqtt://host:port` or `mqtts://host:port`.
    package var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }
}

/// Why a `--broker` value was refused.
package enum BrokerAddressError: Error, Sendable, Hashable, CustomStringConvertible {
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
    package var description: String {
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
