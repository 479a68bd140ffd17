import ArgumentParser
import Dashboard

/// The web dashboard's command-line flags, for `whereabouts-sub` to pull in with `@OptionGroup`.
///
/// Without `--http-port` no dashboard is served; with it, ``configuration`` describes the
/// ``DashboardService`` to add to the service group.
public struct DashboardOptions: ParsableArguments {
    /// The TCP port of the dashboard, or `nil` for no dashboard.
    @Option(
        name: .customLong("http-port"),
        help: "Serve the web dashboard on this TCP port (0 picks a free port and logs it). Without this option no dashboard is served."
    )
    public var httpPort: Int?

    /// The address the dashboard binds.
    @Option(
        name: .customLong("http-host"),
        help: "The address the dashboard binds. The default keeps it private to this machine; use 0.0.0.0 to serve the network, behind a proxy that authenticates."
    )
    public var httpHost: String = "127.0.0.1"

    /// The map tile URL template, if any.
    @Option(
        name: .customLong("tile-url"),
        help: "Draw map tiles from this URL template with {z}, {x} and {y} (and optionally {s}), such as https://tile.openstreetmap.org/{z}/{x}/{y}.png. Without it the map is a plain grid and the page loads nothing from elsewhere."
    )
    public var tileURL: String?

    /// The attribution shown under the tiles.
    @Option(
        name: .customLong("tile-attribution"),
        help: "The attribution the tile provider requires, shown in the map's corner, such as \"© OpenStreetMap contributors\"."
    )
    public var tileAttribution: String?

    /// Creates the options with their defaults (no dashboard).
    public init() {}

    /// Checks the flags: the port is a TCP port, the host is not empty, and a tile URL is an
    /// http(s) URL with the `{z}`, `{x}` and `{y}` placeholders.
    public func validate() throws {
        if let httpPort, !(0...65535).contains(httpPort) {
            throw ValidationError("--http-port must be between 0 and 65535, not \(httpPort).")
        }
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
        if tileAttribution != nil, tileURL == nil {
            throw ValidationError("--tile-attribution needs --tile-url: without tiles there is nothing to attribute.")
        }
        if httpPort == nil, tileURL != nil || httpHost != "127.0.0.1" {
            throw ValidationError("--http-host and --tile-url configure the dashboard; add --http-port to serve it.")
        }
    }

    /// The dashboard to serve, or `nil` without `--http-port`.
    public var configuration: DashboardConfiguration? {
        httpPort.map { port in
            DashboardConfiguration(host: httpHost, port: port, tileURLTemplate: tileURL, tileAttribution: tileAttribution)
        }
    }
}
