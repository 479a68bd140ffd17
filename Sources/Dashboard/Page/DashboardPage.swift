import Foundation
import Hummingbird
import Logging

/// The dashboard's page: `Page/Assets/index.html` with the title and settings filled in, the
/// stylesheet and scripts beside it, and Leaflet from its folder; everything from this server
/// (map tiles only when a tile URL is configured).
///
/// The page reads its settings from an inline JSON block, lists circles from `/api/circles`, and
/// follows the selected circle over `/api/circles/<id>/ws`, reconnecting with backoff. See
/// `docs/dashboard.md` for what it draws and how it extrapolates positions.
struct DashboardPage: Sendable {
    /// The HTML document, with the title and settings in place.
    let html: PageAsset
    /// The page's own stylesheet and scripts by file name, served as `assets/<name>`.
    let assets: [String: PageAsset]
    /// Leaflet, served as `assets/leaflet/<path>`.
    let leaflet: LeafletFiles
    /// The `Content-Security-Policy` the page is served with: scripts, styles and connections only
    /// from this server, images also from the configured tile server, nothing inline but data.
    let contentSecurityPolicy: String

    /// Builds the page for a configuration, reading Leaflet from
    /// ``DashboardConfiguration/leafletDirectory`` (logged: see ``LeafletFiles/load(from:logger:)``).
    init(configuration: DashboardConfiguration, logger: Logger) {
        leaflet = LeafletFiles.load(from: configuration.leafletDirectory, logger: logger)
        let settings = PageSettings(configuration: configuration, mapLibrary: leaflet.isAvailable)
        let template = String(decoding: PackageResources.index_html, as: UTF8.self)
        let document = Self.fill(template, with: [
            "title": Self.escapeHTML(configuration.title), "settings": settings.scriptSafeJSON,
        ])
        html = PageAsset(named: "index.html", bytes: Array(document.utf8))
        assets = [
            "dashboard.css": PageAsset(named: "dashboard.css", bytes: PackageResources.dashboard_css),
            "display.js": PageAsset(named: "display.js", bytes: PackageResources.display_js),
            "map.js": PageAsset(named: "map.js", bytes: PackageResources.map_js),
            "members.js": PageAsset(named: "members.js", bytes: PackageResources.members_js),
            "live.js": PageAsset(named: "live.js", bytes: PackageResources.live_js),
            "history.js": PageAsset(named: "history.js", bytes: PackageResources.history_js),
            "invite.js": PageAsset(named: "invite.js", bytes: PackageResources.invite_js),
        ]
        contentSecurityPolicy = ResponseHeaderValues.pagePolicy(tileSource: configuration.tileURLTemplate.map(Self.tileSource))
    }

    /// The CSP source that admits a tile template's server: `https://*.tile.example.org` for
    /// `https://{s}.tile.example.org/{z}/{x}/{y}.png`, or just its scheme when it has no host.
    static func tileSource(_ template: String) -> String {
        guard let schemeEnd = template.range(of: "://") else { return "https:" }
        let scheme = template[..<schemeEnd.lowerBound]
        let rest = template[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }.replacingOccurrences(of: "{s}", with: "*")
        let allowed = authority.allSatisfy { $0.isLetter || $0.isNumber || ".-:*[]".contains($0) }
        return authority.isEmpty || !allowed ? "\(scheme):" : "\(scheme)://\(authority)"
    }

    /// Replaces each `{{name}}` of `template` with `values[name]` in one pass, so a value that
    /// itself contains `{{...}}` is left as it is; unknown names are left too.
    static func fill(_ template: String, with values: [String: String]) -> String {
        var output = ""
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}"),
                  let value = values[String(rest[open.upperBound..<close.lowerBound])]
            else {
                output += "{{"
                rest = rest[open.upperBound...]
                continue
            }
            output += value
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    /// Escapes text for HTML element content and attribute values.
    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}
