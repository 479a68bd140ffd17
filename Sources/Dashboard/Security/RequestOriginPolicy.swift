import Foundation

/// Decides which `Host` and `Origin` headers the dashboard answers, against DNS rebinding and
/// cross-site WebSocket hijacking.
///
/// - A web page of another site can make the browser connect to the dashboard in two ways. It can
///   open a WebSocket to it: browsers allow that across origins and only say where the page came
///   from, in `Origin`. Or it can have its own name resolve to the dashboard's address (DNS
///   rebinding) and then read the API as if it were its own site: the browser then sends the
///   attacker's name in `Host`.
/// - So a request is answered only when its `Host` names this dashboard: an IP address (a
///   rebinding page cannot make a browser send someone else's address as its host), `localhost`
///   or a name under `.localhost` (RFC 6761 keeps these on the machine), the name the dashboard
///   binds, or a name the operator allowed. The port is not compared: only names can be rebound.
/// - A request that carries `Origin` (every browser WebSocket does) is answered only when that
///   origin is the dashboard's own (same host and port as `Host`) or one the operator allowed;
///   with several `Origin` headers, each must pass. Clients that are not browsers (curl,
///   websocat, other servers) send no `Origin`, or a `ws://` one naming this host, and are not
///   affected.
struct RequestOriginPolicy: Sendable, Hashable {
    /// Extra names, lower case: `name` exactly, `.example.org` any name under it, `*` any name.
    private let names: [String]
    /// Extra origins, lower case, without a trailing slash: `https://dash.example.org`.
    private let origins: Set<String>

    /// Creates the policy for a dashboard bound to `bindHost` with the operator's extra names and
    /// origins.
    init(bindHost: String, allowedHosts: [String], allowedOrigins: [String]) {
        var names = allowedHosts.map { Self.normalisedName($0) }
        let bind = Self.normalisedName(bindHost)
        if !bind.isEmpty, !Self.isIPAddress(bind) { names.append(bind) }
        self.names = names
        origins = Set(allowedOrigins.map { Self.normalisedOrigin($0) })
    }

    /// Why a request was refused.
    enum Refusal: Equatable, Sendable {
        /// The request had no `Host` header, or one that is not `name[:port]`.
        case malformedHost(String?)
        /// `Host` names something other than this dashboard.
        case foreignHost(String)
        /// `Origin` is neither this dashboard nor an allowed origin.
        case foreignOrigin(String)
    }

    /// Checks one request's `Host` (the `authority`) and `Origin` headers (none, one, or several:
    /// each must pass); `nil` means answer it.
    func refusal(host: String?, origins: [String]) -> Refusal? {
        guard let host, let (name, _) = Self.split(authority: host) else { return .malformedHost(host) }
        guard allows(name: name) else { return .foreignHost(host) }
        for origin in origins where !allows(origin: origin, host: host, name: name) {
            return .foreignOrigin(origin)
        }
        return nil
    }

    /// Checks one request with at most one `Origin`.
    func refusal(host: String?, origin: String?) -> Refusal? {
        refusal(host: host, origins: origin.map { [$0] } ?? [])
    }

    private func allows(origin: String, host: String, name: String) -> Bool {
        let normalised = Self.normalisedOrigin(origin)
        if origins.contains(normalised) { return true }
        // Same origin: the page was loaded from this very host and port.
        for scheme in ["http://", "https://"] where normalised.hasPrefix(scheme) {
            return String(normalised.dropFirst(scheme.count)) == Self.normalisedAuthority(host)
        }
        // Browsers only send the origin of a page (http, https or "null"). A ws:// or wss://
        // origin comes from a client that is not a browser (swift-websocket's client sends its
        // own URL's, without the port): accepted when it names this host.
        for scheme in ["ws://", "wss://"] where normalised.hasPrefix(scheme) {
            return Self.split(authority: String(normalised.dropFirst(scheme.count)))?.name == name
        }
        return false
    }

    private func allows(name: String) -> Bool {
        if Self.isIPAddress(name) || name == "localhost" || name.hasSuffix(".localhost") { return true }
        for allowed in names {
            if allowed == "*" || allowed == name { return true }
            if allowed.hasPrefix("."), name.hasSuffix(allowed) { return true }
        }
        return false
    }

    // MARK: Parsing

    /// Splits `name[:port]` or `[v6]:port`; `nil` when it is not one of those.
    static func split(authority: String) -> (name: String, port: Int?)? {
        let text = authority.lowercased()
        var name: Substring
        var rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[text.index(after: text.startIndex)..<close]
            rest = text[text.index(after: close)...]
            guard isIPv6(String(name)) else { return nil }
        } else if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            rest = text[colon...]
        } else {
            name = text[...]
            rest = ""
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-._:".contains($0) }) else { return nil }
        if rest.isEmpty { return (String(name), nil) }
        guard rest.first == ":", let port = Int(rest.dropFirst()), (0...65535).contains(port) else { return nil }
        return (String(name), port)
    }

    static func isIPAddress(_ name: String) -> Bool {
        isIPv4(name) || isIPv6(name)
    }

    /// Dotted-quad IPv4 only: browsers write every IPv4 host that way.
    private static func isIPv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }

    private static func isIPv6(_ name: String) -> Bool {
        var address = in6_addr()
        return name.contains(":") && inet_pton(AF_INET6, name, &address) == 1
    }

    private static func normalisedName(_ name: String) -> String {
        var lower = name.lowercased().trimmingCharacters(in: .whitespaces)
        if lower.hasPrefix("["), lower.hasSuffix("]") { lower = String(lower.dropFirst().dropLast()) }
        if lower.count > 1, lower.hasSuffix(".") { lower.removeLast() }
        return lower
    }

    private static func normalisedAuthority(_ authority: String) -> String {
        var lower = authority.lowercased()
        if let (name, port) = split(authority: lower) {
            let host = isIPv6(name) ? "[\(name)]" : name
            lower = port.map { "\(host):\($0)" } ?? host
        }
        return lower
    }

    static func normalisedOrigin(_ origin: String) -> String {
        var lower = origin.lowercased().trimmingCharacters(in: .whitespaces)
        while lower.hasSuffix("/") { lower.removeLast() }
        for scheme in ["http://", "https://", "ws://", "wss://"] where lower.hasPrefix(scheme) {
            return scheme + normalisedAuthority(String(lower.dropFirst(scheme.count)))
        }
        return lower
    }
}
