import Hummingbird

extension DashboardRouter {
    /// Adds the page and its files:
    /// - `GET /` the page, with its `Content-Security-Policy`.
    /// - `GET /assets/<name>` its stylesheet and scripts (`dashboard.css`, `display.js`, ...).
    /// - `GET /assets/leaflet/<name>` and `/assets/leaflet/images/<name>` Leaflet; 404
    ///   `map_library_missing` with what to install when the server has none.
    ///
    /// Every file has an `ETag` and `Cache-Control: no-cache` (304 when unchanged).
    static func addPageRoutes(to router: Router<DashboardRequestContext>, page: DashboardPage) {
        router.get("/") { request, _ in
            page.html.response(to: request, extraHeaders: [.contentSecurityPolicy: page.contentSecurityPolicy])
        }
        router.get("/assets/:name") { request, context in
            let name = try context.parameters.require("name")
            guard let asset = page.assets[name] else { throw APIError.routeNotFound(request.uri.path) }
            return asset.response(to: request)
        }
        router.get("/assets/leaflet/:name") { request, context in
            try leafletFile(try context.parameters.require("name"), page: page, request: request)
        }
        router.get("/assets/leaflet/images/:name") { request, context in
            try leafletFile("images/" + context.parameters.require("name"), page: page, request: request)
        }
    }

    private static func leafletFile(_ path: String, page: DashboardPage, request: Request) throws -> Response {
        guard page.leaflet.isAvailable else {
            throw APIError(
                status: .notFound, code: "map_library_missing",
                message: "This server has no Leaflet in \(page.leaflet.directory), so the page cannot draw its map. Install the Debian package libjs-leaflet and restart whereabouts-sub, or start it with --leaflet-dir and a folder that holds leaflet.js and leaflet.css.")
        }
        guard let file = page.leaflet.file(path) else { throw APIError.routeNotFound(request.uri.path) }
        return file.response(to: request)
    }
}
