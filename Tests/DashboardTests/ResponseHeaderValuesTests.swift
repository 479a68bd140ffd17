import Testing
@testable import Dashboard

/// The header values built with Hummingbird's `MediaType` and `ContentSecurityPolicy` are byte
/// for byte the strings the dashboard served when they were written out by hand.
@Suite("Content-Type and Content-Security-Policy values")
struct ResponseHeaderValuesTests {
    @Test("Each content type is the string served before")
    func contentTypes() {
        #expect(ResponseHeaderValues.json == "application/json; charset=utf-8")
        #expect(ResponseHeaderValues.geoJSON == "application/geo+json; charset=utf-8")
        #expect(ResponseHeaderValues.gpx == "application/gpx+xml; charset=utf-8")
        #expect(ResponseHeaderValues.xml == "application/xml; charset=utf-8")
        #expect(ResponseHeaderValues.html == "text/html; charset=utf-8")
        #expect(ResponseHeaderValues.javaScript == "text/javascript; charset=utf-8")
        #expect(ResponseHeaderValues.css == "text/css; charset=utf-8")
        #expect(ResponseHeaderValues.png == "image/png")
        #expect(ResponseHeaderValues.svg == "image/svg+xml")
        #expect(ResponseHeaderValues.binary == "application/octet-stream")
        #expect(RecorderFormat.csv.contentType == "text/csv; charset=utf-8; header=present")
        #expect(PageAsset.contentType(forFileNamed: "x.unknown") == "application/octet-stream")
    }

    @Test("The policies are the strings served before")
    func policies() {
        #expect(ResponseHeaderValues.loginPolicy == "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        #expect(ResponseHeaderValues.pagePolicy(tileSource: nil) == "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
        #expect(ResponseHeaderValues.pagePolicy(tileSource: "https://*.tile.example.org") == "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data: https://*.tile.example.org; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
    }
}
