import ArgumentParser
import CommandLineDialect
import Dashboard
import Foundation
import Logging

/// The web dashboard's command-line flags besides the port, for `whereabouts-sub run` to pull in
/// with `@OptionGroup` next to its own `--http-port`.
package struct DashboardOptions: ParsableArguments {
    /// The address the dashboard binds.
    @Option(
        name: .customLong("http-host"),
        help: "The address the dashboard binds. The default keeps it private to this machine; any other address (such as 0.0.0.0, to serve the network) needs --users."
    )
    var httpHost: String = "127.0.0.1"

    /// The map tile URL template, if any.
    @Option(
        name: [.customLong("tiles"), .customLong("tile-url")],
        help: ArgumentHelp(
            "Draw map tiles under the dashboard's map from this URL template with {z}, {x} and {y} (and optionally {s}), such as https://tile.openstreetmap.org/{z}/{x}/{y}.png; the page's Content-Security-Policy then admits that server's images. Without it the map is a metric grid and the page loads nothing from elsewhere.",
            valueName: "url-template"))
    package var tileURL: String?

    /// The attribution shown under the tiles.
    @Option(
        name: [.customLong("tiles-attribution"), .customLong("tile-attribution")],
        help: ArgumentHelp(
            "The attribution the tile provider requires, shown as text in the map's corner, such as \"© OpenStreetMap contributors\".",
            valueName: "text"))
    package var tileAttribution: String?

    /// The folder Leaflet is served from.
    @Option(
        name: .customLong("leaflet-dir"),
        help: ArgumentHelp(
            "The folder holding Leaflet (leaflet.js or leaflet.min.js, and leaflet.css), the library that draws the dashboard's map. The default is where the Debian package libjs-leaflet installs it.",
            valueName: "folder"))
    package var leafletDirectory: String = DashboardConfiguration().leafletDirectory

    /// Extra host names the dashboard answers to.
    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A host name the dashboard answers to besides IP addresses, localhost and --http-host, such as the name of the proxy in front of it; .example.org allows every name under example.org. Repeat for several. Requests for any other name get 403 (DNS rebinding).",
            valueName: "name"))
    package var allowedHosts: [String] = []

    /// Extra origins whose pages may use the dashboard.
    @Option(
        name: .customLong("allowed-origin"),
        help: ArgumentHelp(
            "An origin (scheme://host[:port]) whose pages may use the API and WebSocket besides the dashboard's own, such as https://dash.example.org when a proxy rewrites Host. Repeat for several. Browsers on any other page get 403.",
            valueName: "origin"))
    package var allowedOrigins: [String] = []

    /// Origins whose scripts may read the API across origins (CORS).
    @Option(
        name: .customLong("cors-origin"),
        help: ArgumentHelp(
            "An origin (scheme://host[:port]) whose pages may read the API across origins (CORS), such as the OwnTracks Frontend served from elsewhere with api.baseUrl pointing here. Implies --allowed-origin for it. Answers preflights; never allows cookies across origins (send a bearer token from POST /api/login). Repeat for several.",
            valueName: "origin"))
    package var corsOrigins: [String] = []

    /// The users file that turns on logins.
    @Option(
        name: .customLong("users"),
        help: ArgumentHelp(
            "The dashboard's accounts (YAML; see docs/dashboard.md, \"Login\"): with it every page, API route and WebSocket requires a login, and each account sees only its circles. Write passwords with `whereabouts-sub passwd`. Required unless --http-host is a loopback address; without it the dashboard is open to everyone on this machine.",
            valueName: "file"))
    package var usersFile: String?

    /// Whether the session cookie is marked `Secure`.
    @Flag(
        name: .customLong("secure-cookie"),
        help: "Mark the session cookie Secure, so browsers send it over HTTPS only. Set it when the dashboard is reached through a TLS-terminating proxy (whereabouts-sub itself serves plain HTTP).")
    package var secureCookie = false

    /// How long a login lasts.
    @Option(
        name: .customLong("session-hours"),
        help: ArgumentHelp("How long a login (the session cookie or a bearer token from POST /api/login) lasts, in hours.", valueName: "hours"))
    var sessionHours: Double = 12

    /// Creates the options with their defaults.
    package init() {}

    /// The config-file keys of these flags (without the old aliases `tile-url` and
    /// `tile-attribution`). `allowed-host`, `allowed-origin` and `cors-origin` take one value in a
    /// file; give more on the command line.
    package static let configKeys: [ConfigKey] = [
        ConfigKey("http-host", .string),
        ConfigKey("tiles", .string),
        ConfigKey("tiles-attribution", .string),
        ConfigKey("leaflet-dir", .string),
        ConfigKey("allowed-host", .string),
        ConfigKey("allowed-origin", .string),
        ConfigKey("cors-origin", .string),
        ConfigKey("users", .string),
        ConfigKey("secure-cookie", .flag),
        ConfigKey("session-hours", .number),
    ]

    /// Checks the flags: the host is not empty, and a tile URL is an http(s) URL with the `{z}`,
    /// `{x}` and `{y}` placeholders.
    package func validate() throws {
        if leafletDirectory.allSatisfy(\.isWhitespace) {
            throw ValidationError("--leaflet-dir must not be empty; the default is \(DashboardConfiguration().leafletDirectory) (Debian's libjs-leaflet).")
        }
        if httpHost.allSatisfy(\.isWhitespace) {
            throw ValidationError("--http-host must not be empty; use 127.0.0.1 or 0.0.0.0.")
        }
        if let tileURL {
            guard tileURL.hasPrefix("https://") || tileURL.hasPrefix("http://") else {
                throw ValidationError("--tiles must start with https:// or http://, not '\(tileURL)'.")
            }
            let missing = ["{z}", "{x}", "{y}"].filter { !tileURL.contains($0) }
            guard missing.isEmpty else {
                throw ValidationError("--tiles must contain {z}, {x} and {y}; '\(tileURL)' lacks \(missing.joined(separator: ", ")).")
            }
        }
        for name in allowedHosts {
            let bare = name.hasPrefix(".") ? String(name.dropFirst()) : name
            guard name == "*" || (!bare.isEmpty && bare.allSatisfy({ $0.isLetter || $0.isNumber || "-.".contains($0) })) else {
                throw ValidationError("--allowed-host takes a host name without scheme or port (such as dash.example.org or .example.org), not '\(name)'.")
            }
        }
        for (flag, origins) in [("--allowed-origin", allowedOrigins), ("--cors-origin", corsOrigins)] {
            for origin in origins {
                let parts = origin.split(separator: "://", maxSplits: 1)
                guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()), !parts[1].isEmpty,
                      !parts[1].contains("/") || parts[1].hasSuffix("/") && parts[1].dropLast().allSatisfy({ $0 != "/" })
                else {
                    throw ValidationError("\(flag) takes an origin such as https://dash.example.org or http://10.0.0.5:8080 (scheme, host and optional port, no path), not '\(origin)'.")
                }
            }
        }
        if usersFile == nil, !Self.isLoopback(httpHost) {
            throw ValidationError("--http-host \(httpHost) serves the dashboard beyond this machine, so it needs logins: give --users FILE (create accounts with `whereabouts-sub passwd --users FILE --user NAME`). Without --users, keep --http-host on 127.0.0.1 or ::1.")
        }
        if usersFile == nil, secureCookie { throw ValidationError("--secure-cookie needs --users: without logins there is no session cookie.") }
        guard sessionHours > 0, sessionHours <= 24 * 365 else { throw ValidationError("--session-hours must be above 0 and at most 8760 (a year).") }
        if let usersFile {
            do { _ = try UsersFile.load(path: usersFile) } catch { throw ValidationError("\(error)") }
        }
        if tileAttribution != nil, tileURL == nil {
            throw ValidationError("--tiles-attribution needs --tiles: without tiles there is nothing to attribute.")
        }
    }

    /// Whether `host` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
    static func isLoopback(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")).lowercased()
        return host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1"
            || (host.hasPrefix("127.") && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }

    /// The login check of `--users`, or `nil` without it (the open development mode, which it
    /// announces with a warning).
    package func authenticator(logger: Logger) throws(UsersFileError) -> Authenticator? {
        guard let usersFile else {
            logger.warning("The dashboard has no logins (no --users file): anyone who can reach \(httpHost) sees every circle and its history. Give --users FILE to require a login.")
            return nil
        }
        let authenticator = try Authenticator(
            configuration: LoginConfiguration(usersPath: usersFile, secureCookie: secureCookie, sessionLifetime: sessionHours * 3600),
            logger: logger)
        logger.info("The dashboard requires a login.", metadata: ["whereabouts.file": "\(usersFile)", "whereabouts.accounts": "\(authenticator.accountCount)"])
        if authenticator.accountCount == 0 {
            logger.warning("The users file holds no accounts, so nobody can log in; add one with `whereabouts-sub passwd --users \(usersFile) --user NAME`.")
        }
        return authenticator
    }

    /// The dashboard to serve on `port`.
    package func configuration(port: Int) -> DashboardConfiguration {
        DashboardConfiguration(
            host: httpHost, port: port, tileURLTemplate: tileURL, tileAttribution: tileAttribution,
            allowedHosts: allowedHosts, allowedOrigins: allowedOrigins, corsOrigins: corsOrigins, leafletDirectory: leafletDirectory)
    }
}
