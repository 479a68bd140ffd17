import Subscriber
@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WhereaboutsCore

/// The map as a user handles it, in real headless Chromium: Leaflet's drag and pinch, the
/// page's Content-Security-Policy against what Leaflet and the page actually load, and the page
/// on a server without Leaflet.
@Suite("Dashboard map in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct PageMapTests {
    struct Camera: Decodable {
        var lat: Double
        var lon: Double
        var zoom: Double
        var fit: Bool
    }

    static let cameraScript = """
    (() => { const c = window.whereabouts.map.getCenter();
      return { lat: c.lat, lon: c.lng, zoom: window.whereabouts.map.getZoom(),
               fit: document.getElementById('fit').classList.contains('active') }; })()
    """

    @Test("Dragging pans the map: members move with it, and the camera stops fitting them")
    func dragPans() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor(PageTests.markerAt("alice", lat: 52.6638, lon: -8.6267))
            let before = try await page.value(Camera.self, Self.cameraScript)
            let alice = try await page.value(PageTests.Placement.self, PageTests.placementScript("alice", lat: 52.6638, lon: -8.6267))
            #expect(before.fit)
            // Drag from an empty part of the map (its lower left) 120 px right and 80 px down.
            let map = try await page.value(PageTests.Box.self, "(() => { const r = document.getElementById('map').getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; })()")
            let start = (x: map.left + 60, y: map.bottom - 120)
            try await page.evaluate("(window.moveEnded = new Promise((r) => window.whereabouts.map.once('moveend', () => r(true))), true)")
            try await page.drag(from: start, to: (x: start.x + 120, y: start.y + 80))
            // Leaflet ends a drag with 'moveend', after any inertia has carried the map on.
            try await page.evaluate("window.moveEnded", timeout: .seconds(10))
            #expect(try await page.value(Bool.self, "!document.getElementById('fit').classList.contains('active')"))
            let after = try await page.value(Camera.self, Self.cameraScript)
            #expect(after.lon < before.lon && after.lat > before.lat, "dragging right and down shows what is west and north: \(before) -> \(after)")
            #expect(abs(after.zoom - before.zoom) < 1e-9, "a drag does not zoom")
            // Alice's marker moved with the map, by the drag (less a last step Leaflet may drop,
            // plus what inertia may add, in the same direction), and is still drawn on her coordinates.
            let moved = try await page.value(PageTests.Placement.self, PageTests.placementScript("alice", lat: 52.6638, lon: -8.6267))
            let (dx, dy) = (moved.discX - alice.discX, moved.discY - alice.discY)
            #expect(dx >= 108 && dx < 400 && dy >= 72 && dy < 400 && abs(dx / dy - 1.5) < 0.1, "\(alice) -> \(moved)")
            #expect(abs(moved.discX - moved.x) < 1 && abs(moved.discY - moved.y) < 1)
        }
    }

    @Test("The circle's places are drawn as named discs, and the list says who is where and for how long")
    func places() async throws {
        var logger = Logger(label: "DashboardTests")
        logger.logLevel = .warning
        let home = Place(name: "Home <b>", lat: Fixtures.aliceStart.lat, lon: Fixtures.aliceStart.lon, radius: 120)
        let circles = CirclesFile(circles: [
            Circle(id: "family", name: "Family", members: [Fixtures.alice, Fixtures.bob], places: [home])
        ])
        let store = CircleViewStore(circles: circles, viewInterval: 0, logger: logger)
        let now = Date()
        let t = Int(now.timeIntervalSince1970)
        // At home since two hours and five minutes ago; the newest fix is a few seconds old.
        for tst in [t - 7_500, t - 3] {
            let fix = Fixtures.location("al", tst: tst, lat: Fixtures.aliceStart.lat, lon: Fixtures.aliceStart.lon)
            await store.apply(.location(fix), from: Fixtures.alice.id, retained: false, at: now)
        }
        _ = await store.collectDue(at: now)
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            let text = try await page.waitFor("""
                (() => { const li = document.querySelector('#members li[data-user="alice"]');
                  return li && li.dataset.place === 'Home <b>' && li.textContent.includes('at Home <b> for 2 h 5 min'); })()
                """, describe: "document.getElementById('members').innerText")
            _ = text
            #expect(try await page.value(Int.self, "document.querySelectorAll('#map path.place').length") == 1)
            // The name is shown as text: the tooltip holds no <b> element.
            #expect(try await page.value(String.self, "document.querySelector('.place-label').textContent") == "Home <b>")
            #expect(try await page.value(Int.self, "document.querySelectorAll('.place-label b').length") == 0)
            #expect(try await page.value(String.self, """
                document.querySelector('#members li[data-user="bob"]').textContent
                """).contains("at ") == false)
        }
    }

    @Test("Pinching with two fingers zooms in on a phone")
    func pinchZooms() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, width: 390, height: 844, mobile: true, path: "/#family") { page, _ in
            try await page.waitFor(PageTests.markerAt("alice", lat: 52.6638, lon: -8.6267))
            let before = try await page.value(Camera.self, Self.cameraScript)
            let map = try await page.value(PageTests.Box.self, "(() => { const r = document.getElementById('map').getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; })()")
            try await page.pinch(at: (x: map.left + map.width / 2, y: map.top + map.height / 2), scale: 2)
            try await page.waitFor("window.whereabouts.map.getZoom() > \(before.zoom + 0.5)", timeout: .seconds(10))
            let after = try await page.value(Camera.self, Self.cameraScript)
            #expect(!after.fit, "a pinch hands the camera to the user")
            #expect(after.zoom < before.zoom + 1.6, "a two-fold spread zooms in about one level: \(before.zoom) -> \(after.zoom)")
        }
    }
}

extension PageMapTests {
    /// Records every Content-Security-Policy violation from the first script on, then loads the page.
    static let recordViolations = """
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
    """

    static func withRecordedViolations(
        _ configuration: DashboardConfiguration,
        _ body: @escaping @Sendable (DevToolsPage) async throws -> Void
    ) async throws {
        let store = await Fixtures.store()
        let app = DashboardApplication.make(source: store, configuration: configuration, logger: ServiceTests.logger(.critical))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await HeadlessChromium.withPage { page in
                _ = try await page.session.call("Page.addScriptToEvaluateOnNewDocument", ["source": Self.recordViolations], session: page.sessionID)
                try await page.navigate(to: "http://127.0.0.1:\(port)/#family")
                try await page.waitFor(PageTests.markerAt("alice", lat: 52.6638, lon: -8.6267))
                try await body(page)
            }
        }
    }

    @Test("The page, Leaflet and the tiles run under the Content-Security-Policy without one violation", arguments: [false, true])
    func noViolations(tiles: Bool) async throws {
        let configuration = tiles
            ? DashboardConfiguration(port: 0, tileURLTemplate: "http://127.0.0.1:9/{z}/{x}/{y}.png", tileAttribution: "© Test tiles")
            : DashboardConfiguration(port: 0)
        try await Self.withRecordedViolations(configuration) { page in
            try await page.waitFor("window.whereabouts.placedMembers().length === 3")
            let loaded = try await page.value(Bool.self, "typeof L === 'object' && typeof window.whereabouts.map.getZoom === 'function'")
            #expect(loaded, "Leaflet ran")
            #expect(try await page.value([String].self, "window.cspViolations") == [])
            // The recorder works: an image from a host the policy does not name is a violation.
            try await page.evaluate("(() => { const i = document.createElement('img'); i.src = 'http://127.0.0.2:9/x.png'; document.body.appendChild(i); })()")
            try await page.waitFor("window.cspViolations.length > 0")
            let violations = try await page.value([String].self, "window.cspViolations")
            #expect(violations.allSatisfy { $0.hasPrefix("img-src http://127.0.0.2:9") }, "\(violations)")
        }
    }

    @Test("Without Leaflet on the server the page says what to install, and the list stays live")
    func withoutLeaflet() async throws {
        let store = await Fixtures.store()
        let configuration = DashboardConfiguration(port: 0, leafletDirectory: "/nonexistent/leaflet")
        try await PageTests.withDashboard(store, path: "/#family", configuration: configuration) { page, _ in
            try await page.waitFor("document.querySelectorAll('#members li').length === 4")
            let message = try await page.value(String.self, "document.getElementById('empty').textContent")
            #expect(message.contains("install the Debian package libjs-leaflet"), "message: \(message)")
            #expect(try await page.value(Bool.self, "document.getElementById('empty').hidden") == false)
            #expect(try await page.value(Int.self, "document.querySelectorAll('#map .member').length") == 0)
            try await Fixtures.move(Fixtures.alice, in: store, to: 52.6702, -8.6111)
            try await page.waitFor("window.whereabouts.state.view.members[0].fix.lat === 52.6702")
            let detail = try await page.value(String.self, "document.querySelector('#members li[data-user=alice] .detail').textContent")
            #expect(detail.contains("s ago"))
        }
    }
}

extension PageMapTests {
    @Test("The + and − buttons zoom by one level and hand the camera to the user; fit frames every member again")
    func zoomButtons() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor(PageTests.markerAt("alice", lat: 52.6638, lon: -8.6267))
            let fitted = try await page.value(Camera.self, Self.cameraScript)
            try await page.evaluate("(window.zoomEnded = new Promise((r) => window.whereabouts.map.once('zoomend', () => r(true))), true)")
            try await page.evaluate("document.getElementById('zoomin').click()")
            try await page.evaluate("window.zoomEnded", timeout: .seconds(10))
            let zoomedIn = try await page.value(Camera.self, Self.cameraScript)
            #expect(!zoomedIn.fit)
            #expect(abs(zoomedIn.zoom - fitted.zoom - 1) < 1e-6, "\(fitted.zoom) -> \(zoomedIn.zoom)")

            // Fit: the camera frames every member again, each marker inside the map.
            try await page.evaluate("document.getElementById('fit').click()")
            try await page.waitFor("Math.abs(window.whereabouts.map.getZoom() - \(fitted.zoom)) < 0.01")
            #expect(try await page.value(Camera.self, Self.cameraScript).fit)
            let inside = try await page.value(Bool.self, """
                (() => { const map = document.getElementById('map').getBoundingClientRect();
                  return [...document.querySelectorAll('#map .member .body')].every((e) => { const r = e.getBoundingClientRect();
                    return r.left >= map.left && r.right <= map.right && r.top >= map.top && r.bottom <= map.bottom; }); })()
                """)
            #expect(inside)
        }
    }
}
