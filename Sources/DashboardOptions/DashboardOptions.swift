import ArgumentParser
import Dashboard

/// The web dashboard's command-line flags besides the port, for `whereabouts-sub run` to pull in
/// with `@OptionGroup` next to its own `--http-port`.
public struct DashboardOptions: ParsableArguments {
    /// The address the dashboard binds.
    @Option(
        name: .customLong("http-host"),
        help: "The address the dashboard binds. The default keeps it private to this machine; use 0.0.0.0 to serve the network, behind a proxy that authenticates."
    )
    public var httpHost: String = "127.0.0.1"

    /// The map tile URL template, if any.
    @Option(
        name: .customLong("tile-url"),
        help: "Draw map tiles on the dashboard from this URL template with {z}, {x} and {y} (and optionally {s}), such as https://tile.openstreetmap.org/{z}/{x}/{y}.png. Without it the map is a plain grid and the page loads nothing from elsewhere."
    )
    public var tileURL: String?

    /// The attribution shown under the tiles.
    @Option(
        name: .customLong("tile-attribution"),
        help: "The attribution the tile provider requires, shown in the map's corner, such as \"© OpenStreetMap contributors\"."
    )
    public var tileAttribution: String?

    /// Extra host names the dashboard answers to.
    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A host name the dashboard answers to besides IP addresses, localhost and --http-host, such as the name of the proxy in front of it; .example.org allows every name under example.org. Repeat for several. Requests for any other name get 403 (DNS rebinding).",
            valueName: "name"))
    public var allowedHosts: [String] = []

    /// Extra origins whose pages may use the dashboard.
    @Option(
        name: .customLong("allowed-origin"),
        help: ArgumentHelp(
            "An origin (scheme://host[:port]) whose pages may use the API and WebSocket besides the dashboard's own, such as https://dash.example.org when a proxy rewrites Host. Repeat for several. Browsers on any other page get 403.",
            valueName: "origin"))
    public var allowedOrigins: [String] = []

    /// Creates the options with their defaults.
    public init() {}

    /// Checks the flags: the host is not empty, and a tile URL is an http(s) URL with the `{z}`,
    /// `{x}` and `{y}` placeholders.
    public func validate() throws {
        if httpHost.allSatisfy(\.isWhitespace) {
            throw ValidationError("--http-host must not be empty; use 127.0.0.1 or 0.0.0.0.")
        }
        if let tileURL {
            guard tileURL.hasPrefix("https://") || tileURL.hasPrefix("http://") else {
                throw ValidationError("--tile-url must start with https:// or http://, not '\(tileURL)'.")
            }
            let missing = ["{z}", "{x}", "{y}"].filter { !tileURL.contains($0) }
            guard missing.isEmpty else {
                throw ValidationError("--tile-url must contain {z}, {x} and {y}; '\(tileURL)' lacks \(missing.joined(separator: ", ")).")
            }
        }
        for name in allowedHosts {
            let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
            guard name == "*" || (!bare.isEmpty && bare.allSatisfy({ $0.isLetter || $0.isNumber || "-.".contains($0) })) else {
                throw ValidationError("--allowed-host takes a host name without scheme or port (such as dash.example.org or .example.org), not '\(name)'.")
            }
        }
        for origin in allowedOrigins {
            let parts = origin.split(separator: "://", maxSplits: 1)
            guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()), !parts[1].isEmpty,
                  !parts[1].contains("/") || parts[1].hasSuffix("/") && parts[1].dropLast().allSatisfy({ $0 != "/" })
            else {
                throw ValidationError("--allowed-origin takes an origin such as https://dash.example.org or http://10.0.0.5:8080 (scheme, host and optional port, no path), not '\(origin)'.")
            }
        }
        if tileAttribution != nil, tileURL == nil {
            throw ValidationError("--tile-attribution needs --tile-url: without tiles there is nothing to attribute.")
        }
    }

    /// The dashboard to serve on `port`.
    public func configuration(port: Int) -> DashboardConfiguration {
        DashboardConfiguration(
            host: httpHost, port: port, tileURLTemplate: tileURL, tileAttribution: tileAttribution,
            allowedHosts: allowedHosts, allowedOrigins: allowedOrigins)
    }
}
