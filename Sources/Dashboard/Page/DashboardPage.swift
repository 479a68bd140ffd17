import Foundation

/// The dashboard's single page: HTML, CSS and JavaScript in one self-contained document that
/// loads nothing from elsewhere (map tiles only when a tile URL is configured).
///
/// The page reads its settings from an inline JSON block, lists circles from `/api/circles`, and
/// follows the selected circle over `/api/circles/<id>/ws`, reconnecting with backoff. See
/// `docs/dashboard.md` for what it draws and how it extrapolates positions.
struct DashboardPage: Sendable {
    /// The complete HTML document.
    let html: String
    /// The `Content-Security-Policy` the page is served with: nothing may load from anywhere but
    /// this server, except tiles from the configured tile server.
    let contentSecurityPolicy: String

    /// Builds the page for a configuration.
    init(configuration: DashboardConfiguration) {
        let settings = PageSettings(
            title: configuration.title,
            tileURL: configuration.tileURLTemplate,
            tileAttribution: configuration.tileAttribution
        )
        html = Self.document(title: configuration.title, settingsJSON: settings.scriptSafeJSON)
        let tiles = configuration.tileURLTemplate.map { " " + Self.tileSource($0) } ?? ""
        contentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            + "img-src 'self' data:\(tiles); connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
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

    private static func document(title: String, settingsJSON: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
        <meta name="theme-color" content="#2563eb">
        <title>\(escapeHTML(title))</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        <header>
          <h1>\(escapeHTML(title))<span class="dot">.</span></h1>
          <select id="circle" aria-label="Circle"></select>
          <span id="connection" class="pill" role="status">connecting…</span>
        </header>
        <main>
          <div id="mapwrap">
            <svg id="map" role="img" aria-label="Map of the circle's members" xmlns="http://www.w3.org/2000/svg">
              <g id="tiles"></g><g id="grid" class="grid"></g><g id="trails"></g><g id="markers"></g>
            </svg>
            <div class="controls">
              <button id="zoomin" type="button" aria-label="Zoom in">+</button>
              <button id="zoomout" type="button" aria-label="Zoom out">−</button>
              <button id="fit" type="button" class="active" aria-label="Fit all members">fit</button>
            </div>
            <div class="scalebar" id="scalebar"><span id="scalelabel"></span><div class="bar" id="scalebarbar"></div></div>
            <div class="attribution" id="attribution" hidden></div>
            <div class="empty" id="empty">Waiting for the subscriber…</div>
          </div>
          <aside>
            <div class="summary" id="summary"></div>
            <ul id="members"></ul>
          </aside>
        </main>
        <script id="settings" type="application/json">\(settingsJSON)</script>
        <script>
        \(scriptGeometry)
        \(scriptMap)
        \(scriptLive)
        </script>
        </body>
        </html>
        """
    }

    /// Escapes text for HTML element content and attribute values.
    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// The settings the page reads from its inline JSON block.
struct PageSettings: Sendable, Codable, Hashable {
    var title: String
    var tileURL: String?
    var tileAttribution: String?

    /// The settings as JSON that cannot end the `<script>` element it sits in.
    var scriptSafeJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return json.replacingOccurrences(of: "<", with: "\\u003c")
    }
}
