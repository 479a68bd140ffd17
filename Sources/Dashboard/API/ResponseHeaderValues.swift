import Hummingbird

/// The `Content-Type` values the dashboard serves, from Hummingbird's `MediaType` (its
/// `description` is the header value, `type/subtype; name=value`), and the pages'
/// `Content-Security-Policy`, from Hummingbird's `ContentSecurityPolicy`. Two types carry two
/// parameters, which `MediaType` cannot hold: they stay written out where they are served
/// (`/metrics`, Prometheus' `version=0.0.4`; the Recorder's CSV, `header=present`).
enum ResponseHeaderValues {
    /// `application/json; charset=utf-8`.
    static let json = utf8(.applicationJson)
    /// `application/geo+json; charset=utf-8`.
    static let geoJSON = utf8(MediaType(type: .application, subType: "geo+json"))
    /// `application/gpx+xml; charset=utf-8`.
    static let gpx = utf8(MediaType(type: .application, subType: "gpx+xml"))
    /// `application/xml; charset=utf-8`.
    static let xml = utf8(.applicationXml)
    /// `text/html; charset=utf-8`.
    static let html = utf8(.textHtml)
    /// `text/javascript; charset=utf-8`.
    static let javaScript = utf8(.textJavascript)
    /// `text/css; charset=utf-8`.
    static let css = utf8(.textCss)
    /// `image/png`.
    static let png = MediaType.imagePng.description
    /// `image/svg+xml`.
    static let svg = MediaType.imageSvg.description
    /// `application/octet-stream`.
    static let binary = MediaType.applicationBinary.description

    /// The login page's policy: nothing loads; the form posts to the dashboard itself.
    static let loginPolicy = ContentSecurityPolicy([
        .defaultSrc(.none), .formAction(.self), .frameAncestors(.none), .baseURI(.none),
    ]).description

    /// The dashboard page's policy: its own scripts, styles and API; images from itself, `data:`
    /// URLs and `tileSource` (the map tiles' server, see ``DashboardPage/tileSource(_:)``) when given.
    static func pagePolicy(tileSource: String?) -> String {
        ContentSecurityPolicy([
            .defaultSrc(.none), .scriptSrc(.self), .styleSrc(.self),
            tileSource.map { .imgSrc(.self, "data:", .uri($0)) } ?? .imgSrc(.self, "data:"),
            .connectSrc(.self), .baseURI(.none), .formAction(.self), .frameAncestors(.none),
        ]).description
    }

    private static func utf8(_ type: MediaType) -> String {
        type.withParameter(name: "charset", value: "utf-8").description
    }
}
