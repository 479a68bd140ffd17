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
        if tileAttribution != nil, tileURL == nil {
            throw ValidationError("--tile-attribution needs --tile-url: without tiles there is nothing to attribute.")
        }
    }

    /// The dashboard to serve on `port`.
    public func configuration(port: Int) -> DashboardConfiguration {
        DashboardConfiguration(host: httpHost, port: port, tileURLTemplate: tileURL, tileAttribution: tileAttribution)
    }
}
