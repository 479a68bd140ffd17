import Subscriber
@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WhereaboutsCore

/// The page in a real headless Chromium (Debian package `chromium`), driven over the DevTools
/// protocol. Serialised: each test starts its own browser, and the machine has two cores.
@Suite("Dashboard page in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct PageTests {
    struct Marker: Decodable, Equatable {
        var user: String
        var device: String
        var status: String
        var lat: Double
        var lon: Double
    }

    /// Every member marker the page draws, from its data attributes.
    static let markersScript = """
    [...document.querySelectorAll('#map .member')].map((g) => ({
      user: g.dataset.user, device: g.dataset.device, status: g.dataset.status,
      lat: Number(g.dataset.lat), lon: Number(g.dataset.lon) }))
    """

    /// A JS condition: the marker of `user` shows the given position (to 1e-6 degrees).
    static func markerAt(_ user: String, lat: Double, lon: Double) -> String {
        """
        (() => { const g = document.querySelector('#map .member[data-user="\(user)"]');
          return g && Math.abs(Number(g.dataset.lat) - \(lat)) < 1e-6 && Math.abs(Number(g.dataset.lon) - \(lon)) < 1e-6; })()
        """
    }

    /// Where Leaflet has a marker (`lat`/`lon`), where it projects the expected position on the
    /// map (`x`/`y`), and where the marker's disc is drawn (`discX`/`discY`), in map pixels.
    struct Placement: Decodable {
        var lat: Double
        var lon: Double
        var x: Double
        var y: Double
        var discX: Double
        var discY: Double
    }

    static func placementScript(_ user: String, lat: Double, lon: Double) -> String {
        """
        (() => { const p = window.whereabouts.markerPosition('\(user)');
          const map = document.getElementById('map').getBoundingClientRect();
          const disc = document.querySelector('#map .member[data-user="\(user)"] .body').getBoundingClientRect();
          const expected = window.whereabouts.map.latLngToContainerPoint([\(lat), \(lon)]);
          return { lat: p.lat, lon: p.lon, x: expected.x, y: expected.y,
                   discX: disc.left + disc.width / 2 - map.left, discY: disc.top + disc.height / 2 - map.top }; })()
        """
    }

    /// Runs `body` with the dashboard live on a free port and a Chromium page on it.
    static func withDashboard(
        _ store: CircleViewStore,
        width: Int = 1280, height: Int = 800, mobile: Bool = false,
        path: String = "/",
        configuration: DashboardConfiguration = .init(port: 0),
        _ body: @escaping @Sendable (DevToolsPage, Int) async throws -> Void
    ) async throws {
        let app = DashboardApplication.make(
            source: store, configuration: configuration, logger: Logger(label: "DashboardTests")
        )
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await HeadlessChromium.withPage(width: width, height: height, mobile: mobile) { page in
                try await page.navigate(to: "http://127.0.0.1:\(port)\(path)")
                try await body(page, port)
            }
        }
    }

    @Test("The page draws each member at the view's position, and moves it when a new fix arrives")
    func liveUpdate() async throws {
        let store = await Fixtures.store()
        try await Self.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor(Self.markerAt("alice", lat: 52.6638, lon: -8.6267))
            let markers = try await page.value([Marker].self, Self.markersScript)
            #expect(Set(markers.map(\.user)) == ["alice", "bob", "carol"], "Dave has no fix, so no marker")
            #expect(markers.first { $0.user == "bob" }?.status == "stale")
            #expect(markers.first { $0.user == "carol" }?.status == "offline")
            #expect(try await page.value(String.self, "document.body.dataset.connection") == "open")

            // A new fix for Alice (no velocity: held exactly where reported).
            let outcome = try await Fixtures.move(Fixtures.alice, in: store, to: 52.6702, -8.6111)
            #expect(outcome == .changed)
            try await page.waitFor(Self.markerAt("alice", lat: 52.6702, lon: -8.6111))
            // Leaflet holds the marker at that position, and draws its disc where Leaflet projects
            // Alice's reported coordinates on the screen.
            let placement = try await page.value(Placement.self, Self.placementScript("alice", lat: 52.6702, lon: -8.6111))
            #expect(abs(placement.lat - 52.6702) < 1e-9 && abs(placement.lon - -8.6111) < 1e-9)
            #expect(abs(placement.discX - placement.x) < 1 && abs(placement.discY - placement.y) < 1, "\(placement)")
            let list = try await page.value(String.self, "document.querySelector('#members li[data-user=alice] .detail').textContent")
            #expect(list.contains("s ago"))

            // Ages tick on their own, with no new view: the marker's "N s ago" changes within seconds.
            let ageScript = "document.querySelector('#map .member[data-user=alice] .age').textContent"
            let age = try await page.value(String.self, ageScript)
            #expect(age.hasSuffix(" s ago"), "age label: \(age)")
            try await page.waitFor("\(ageScript) !== '\(age)'", timeout: .seconds(5))
            try await page.screenshot(to: Self.screenshotPath("desktop"))
        }
    }

    /// Where screenshots go: `$WHEREABOUTS_SCREENSHOTS` when set, else the temp folder.
    static func screenshotPath(_ name: String) -> String {
        let folder = ProcessInfo.processInfo.environment["WHEREABOUTS_SCREENSHOTS"] ?? NSTemporaryDirectory()
        return URL(fileURLWithPath: folder).appendingPathComponent("dashboard-\(name).png").path
    }
}

extension PageTests {
    struct Layout: Decodable {
        var innerWidth: Double
        var scrollWidth: Double
        var map: Box
        var list: Box
        var markers: [Box]
        var fontSize: Double
        var buttons: [Box]
    }

    struct Box: Decodable {
        var left: Double
        var top: Double
        var width: Double
        var height: Double
        var right: Double { left + width }
        var bottom: Double { top + height }
        func contains(_ other: Box) -> Bool {
            other.left >= left - 0.5 && other.right <= right + 0.5 && other.top >= top - 0.5 && other.bottom <= bottom + 0.5
        }
    }

    static let layoutScript = """
    (() => { const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, top: r.top, width: r.width, height: r.height }; };
      return { innerWidth: innerWidth, scrollWidth: document.documentElement.scrollWidth,
        map: box(document.getElementById('map')), list: box(document.querySelector('aside')),
        markers: [...document.querySelectorAll('#map .member .body')].map(box),
        fontSize: parseFloat(getComputedStyle(document.querySelector('#members .who')).fontSize),
        buttons: [...document.querySelectorAll('.controls button')].map(box) }; })()
    """

    @Test("On a phone-sized screen the map sits above the list, nothing overflows, markers are on the map")
    func phoneLayout() async throws {
        let store = await Fixtures.store()
        try await Self.withDashboard(store, width: 390, height: 844, mobile: true, path: "/#family") { page, _ in
            try await page.waitFor(Self.markerAt("alice", lat: 52.6638, lon: -8.6267))
            let layout = try await page.value(Layout.self, Self.layoutScript)
            #expect(layout.innerWidth == 390, "the viewport meta makes the layout viewport the phone's width")
            #expect(layout.scrollWidth <= layout.innerWidth, "no sideways scrolling")
            #expect(layout.map.width == 390 && layout.map.height >= 260)
            #expect(layout.list.top >= layout.map.bottom - 1, "the member list is below the map")
            #expect(layout.markers.count == 3)
            for marker in layout.markers {
                #expect(layout.map.contains(marker), "marker \(marker) is inside the map \(layout.map)")
            }
            #expect(layout.fontSize >= 14, "names are readable")
            #expect(layout.buttons.allSatisfy { $0.width >= 44 && $0.height >= 44 }, "touch targets are at least 44 px")
            try await page.screenshot(to: Self.screenshotPath("phone"))
        }
    }
}
