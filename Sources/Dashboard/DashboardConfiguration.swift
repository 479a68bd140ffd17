import Subscriber

/// How the dashboard's HTTP server listens and what the page shows.
package struct DashboardConfiguration: Sendable, Hashable {
    /// The address to bind. Defaults to loopback, so the dashboard is private to the machine
    /// unless an operator opts in (for example `0.0.0.0`).
    package var host: String
    /// The TCP port to listen on; 0 picks a free port (reported through `onListening`).
    package var port: Int
    /// A map tile URL template with `{z}`, `{x}` and `{y}` (and optionally `{s}`), such as
    /// `https://tile.openstreetmap.org/{z}/{x}/{y}.png`. When `nil` the map is a plain
    /// background with a metric grid and the page loads nothing from elsewhere, so it works offline.
    package var tileURLTemplate: String?
    /// The attribution shown, as text, in the map's corner when tiles are drawn (tile providers
    /// require one, for example "© OpenStreetMap contributors").
    package var tileAttribution: String?
    /// The page's title.
    package var title: String
    /// Host names the dashboard answers besides IP addresses, `localhost`, names under
    /// `.localhost` and ``host`` itself: `name` exactly, `.example.org` for every name under it,
    /// `*` for any name (turns off the DNS-rebinding check). A request whose `Host` names anything
    /// else gets 403.
    package var allowedHosts: [String]
    /// Origins (`https://dash.example.org`) whose pages may use the API and the WebSocket besides
    /// the dashboard's own; a request with any other `Origin` gets 403. Needed when a proxy
    /// rewrites `Host`, or another site of yours embeds the views.
    package var allowedOrigins: [String]
    /// Origins whose scripts may read the API across origins (CORS: `Access-Control-Allow-Origin`
    /// and answered preflights), such as the OwnTracks Frontend served from another origin. Each
    /// is also an allowed origin. Cookies are never allowed across origins: such a page logs in
    /// with `POST /api/login` and sends the token as `Authorization: Bearer`.
    package var corsOrigins: [String]
    /// The folder holding Leaflet (`leaflet.js` or `leaflet.min.js`, `leaflet.css`, `images/`),
    /// read once at start; by default where Debian's `libjs-leaflet` installs it. When it is
    /// missing the dashboard logs a warning and the page lists members without a map.
    package var leafletDirectory: String
    /// The location history the OwnTracks Recorder API (`/api/0/...`) serves; `nil`: no such API.
    package var history: HistoryStore?
    /// The login check (``Authenticator``, from `--users FILE`); `nil`: the open development
    /// mode, where every route is served to anyone who reaches the port.
    package var login: Authenticator?
    /// The invite dialog's provisioning (`Invite/`); `nil`: no invite routes, no button.
    package var invites: InviteDesk?

    /// Creates a configuration; every argument has a default.
    package init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        tileURLTemplate: String? = nil,
        tileAttribution: String? = nil,
        title: String = "Whereabouts",
        allowedHosts: [String] = [],
        allowedOrigins: [String] = [],
        corsOrigins: [String] = [],
        leafletDirectory: String = "/usr/share/javascript/leaflet"
    ) {
        self.host = host
        self.port = port
        self.tileURLTemplate = tileURLTemplate
        self.tileAttribution = tileAttribution
        self.title = title
        self.allowedHosts = allowedHosts
        self.allowedOrigins = allowedOrigins
        self.corsOrigins = corsOrigins
        self.leafletDirectory = leafletDirectory
    }
}

extension DashboardConfiguration {
    /// The `Host`/`Origin` check for this configuration.
    var originPolicy: RequestOriginPolicy {
        RequestOriginPolicy(bindHost: host, allowedHosts: allowedHosts, allowedOrigins: allowedOrigins + corsOrigins)
    }

    /// The CORS allow-list for this configuration.
    var crossOriginPolicy: CrossOriginPolicy {
        CrossOriginPolicy(origins: corsOrigins)
    }
}
