import Subscriber

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WhereaboutsCore

@testable import Dashboard

/// The page's files as the server answers them: the HTML, its stylesheet and scripts compiled
/// into the binary, Leaflet from its folder, and the settings the page reads.
@Suite("Dashboard page files")
struct PageAssetTests {
    /// Every `src="..."` and `href="..."` of the page.
    static func references(in html: String) -> [String] {
        html.matches(of: /(?:src|href)="([^"]+)"/).map { String($0.1) }
    }

    @Test("Every file the page references is served with its content type, nosniff and an ETag, and 304 when unchanged")
    func referencedFiles() async throws {
        try await APITests.application(await Fixtures.store()).test(.router) { client in
            let html = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            let files = Self.references(in: html)
            #expect(files == [
                "assets/leaflet/leaflet.css", "assets/dashboard.css", "assets/leaflet/leaflet.js",
                "assets/display.js", "assets/map.js", "assets/members.js", "assets/live.js", "assets/history.js", "assets/invite.js",
            ])
            for file in files {
                let etag = try await client.execute(uri: "/" + file, method: .get) { response in
                    #expect(response.status == .ok, "\(file)")
                    let type = file.hasSuffix(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8"
                    #expect(response.headers[.contentType] == type, "\(file)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                    #expect(response.body.readableBytes > 1000, "\(file) has content")
                    return try #require(response.headers[.eTag])
                }
                try await client.execute(uri: "/" + file, method: .get, headers: [.ifNoneMatch: etag]) { response in
                    #expect(response.status == .notModified, "\(file)")
                    #expect(response.body.readableBytes == 0)
                }
            }
            try await client.execute(uri: "/assets/nothing.js", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test("The page's own files load nothing from elsewhere and carry no copies of Core's constants")
    func ownFilesAreLocal() async throws {
        try await APITests.application(await Fixtures.store()).test(.router) { client in
            for name in ["dashboard.css", "display.js", "map.js", "members.js", "live.js"] {
                let text = try await client.execute(uri: "/assets/\(name)", method: .get) { String(buffer: $0.body) }
                let urls = text.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
                #expect(!urls.contains("http://") && !urls.contains("https://") && !urls.contains("@import"), "\(name)")
                #expect(!text.contains("6371") && !text.contains("= 60;"), "\(name) must read the earth radius and horizon from the settings")
            }
        }
    }

    struct Settings: Decodable {
        var earthRadius: Double
        var defaultMaxSilence: Int
        var mapLibrary: Bool
    }

    static func settings(in html: String) throws -> Settings {
        let json = try #require(html.firstMatch(of: /<script id="settings" type="application\/json">(.*?)<\/script>/)?.1)
        return try JSONDecoder().decode(Settings.self, from: Data(json.utf8))
    }

    @Test("The settings carry Core's earth radius and default horizon, and whether Leaflet was found")
    func settings() async throws {
        try await APITests.application(await Fixtures.store()).test(.router) { client in
            let html = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            let settings = try Self.settings(in: html)
            #expect(settings.earthRadius == Geodesy.earthRadius)
            #expect(settings.defaultMaxSilence == LocationMessage.defaultMaxSilence)
            #expect(settings.mapLibrary == FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.css"))
        }
    }

    @Test("Without Leaflet its routes answer 404 with what to install, and the settings say so")
    func leafletMissing() async throws {
        let configuration = DashboardConfiguration(port: 0, leafletDirectory: "/nonexistent/leaflet")
        try await APITests.application(await Fixtures.store(), configuration: configuration).test(.router) { client in
            let html = try await client.execute(uri: "/", method: .get) { String(buffer: $0.body) }
            #expect(try Self.settings(in: html).mapLibrary == false)
            for path in ["/assets/leaflet/leaflet.js", "/assets/leaflet/leaflet.css", "/assets/leaflet/images/layers.png"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound)
                    let body = try JSONDecoder().decode(APITests.ErrorBody.self, from: Data(buffer: response.body))
                    #expect(body.error == "map_library_missing")
                    #expect(body.message.contains("libjs-leaflet") && body.message.contains("/nonexistent/leaflet"))
                }
            }
        }
    }

    @Test("Leaflet is served from Debian's folder: the minified script, the stylesheet and its images",
          .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.css")))
    func leafletFromDebian() async throws {
        try await APITests.application(await Fixtures.store()).test(.router) { client in
            let script = try await client.execute(uri: "/assets/leaflet/leaflet.js", method: .get) { String(buffer: $0.body) }
            let minified = try String(contentsOfFile: "/usr/share/javascript/leaflet/leaflet.min.js", encoding: .utf8)
            #expect(script == minified)
            try await client.execute(uri: "/assets/leaflet/images/layers.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
            }
        }
    }

    @Test("The CSP allows scripts and styles from this server only, and a tile host only when tiles are configured")
    func contentSecurityPolicy() async throws {
        let plain = DashboardPage(configuration: .init(port: 0), logger: ServiceTests.logger(.critical)).contentSecurityPolicy
        #expect(plain.contains("script-src 'self';") && plain.contains("style-src 'self';") && !plain.contains("unsafe-inline"))
        #expect(plain.contains("img-src 'self' data:;"))
        let tiled = DashboardPage(
            configuration: .init(port: 0, tileURLTemplate: "https://{s}.tile.example.org/{z}/{x}/{y}.png"),
            logger: ServiceTests.logger(.critical)
        ).contentSecurityPolicy
        #expect(tiled.contains("img-src 'self' data: https://*.tile.example.org;"))
        #expect(tiled.replacingOccurrences(of: " https://*.tile.example.org", with: "") == plain)
    }

    @Test("The template is filled in one pass: a value that looks like a placeholder stays as it is")
    func fillOnePass() {
        let filled = DashboardPage.fill("<title>{{title}}</title>{{settings}}{{unknown}}", with: ["title": "{{settings}}", "settings": "{}"])
        #expect(filled == "<title>{{settings}}</title>{}{{unknown}}")
    }
}
