import Subscriber
import Dashboard
import Foundation
import Logging
import ServiceLifecycle
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// What the page computes and how it copes with the server going away, in real headless Chromium.
@Suite("Dashboard page behaviour in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct PageBehaviourTests {
    struct Case: Codable, Sendable, CustomTestStringConvertible {
        var lat: Double
        var lon: Double
        var ve: Double?
        var vn: Double?
        var ms: Int?
        var elapsed: Double
        var tr: Double? = nil
        var testDescription: String { "(\(lat), \(lon)) v=(\(ve.map { "\($0)" } ?? "-"), \(vn.map { "\($0)" } ?? "-")) ms=\(ms.map { "\($0)" } ?? "-") after \(elapsed) s" }
    }

    struct Position: Decodable { var lat: Double; var lon: Double }

    static let cases: [Case] = [
        Case(lat: 52.6638, lon: -8.6267, ve: 10, vn: 0, ms: 60, elapsed: 5),
        Case(lat: 52.6638, lon: -8.6267, ve: -3.25, vn: 7.5, ms: 30, elapsed: 45),   // past ms: stops at 30 s
        Case(lat: 52.6638, lon: -8.6267, ve: 4, vn: -4, ms: nil, elapsed: 90),      // default 60 s horizon
        Case(lat: 52.6638, lon: -8.6267, ve: nil, vn: nil, ms: 60, elapsed: 30),    // no velocity: hold
        Case(lat: 52.6638, lon: -8.6267, ve: 10, vn: 10, ms: 60, elapsed: -5),      // before tst: hold
        Case(lat: -33.8688, lon: 151.2093, ve: 25, vn: -12, ms: 120, elapsed: 100),
        Case(lat: 69.6492, lon: 18.9553, ve: 30, vn: 5, ms: 60, elapsed: 60),       // high latitude
        Case(lat: 0.5, lon: 179.9999, ve: 50, vn: 0, ms: 60, elapsed: 60),          // across the antimeridian
        Case(lat: 10, lon: -179.9999, ve: -50, vn: 0, ms: 60, elapsed: 60),
        Case(lat: 52.6638, lon: -8.6267, ve: 40, vn: 5, ms: 60, elapsed: 25, tr: 6.5),   // turning left: an arc
        Case(lat: 52.6638, lon: -8.6267, ve: -12, vn: 30, ms: 20, elapsed: 45, tr: -14),  // turning right, past ms
    ]

    @Test("The page extrapolates exactly like Core's LocationMessage.displayedPosition")
    func sameFormulaAsCore() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store) { page, _ in
            let json = String(decoding: try JSONEncoder().encode(Self.cases), as: UTF8.self)
            let fromPage = try await page.value(
                [Position].self,
                "\(json).map((c) => window.whereabouts.displayedPosition({ tst: 1700000000, lat: c.lat, lon: c.lon, ve: c.ve, vn: c.vn, ms: c.ms, tr: c.tr }, c.elapsed))"
            )
            try #require(fromPage.count == Self.cases.count)
            for (c, shown) in zip(Self.cases, fromPage) {
                let message = LocationMessage(tid: "t", tst: 1_700_000_000, lat: c.lat, lon: c.lon, acc: 5, ve: c.ve, vn: c.vn, ms: c.ms, tr: c.tr)
                let core = message.displayedPosition(afterSeconds: c.elapsed)
                #expect(abs(shown.lat - core.latitude) < 1e-9, "\(c.testDescription): page \(shown.lat), Core \(core.latitude)")
                #expect(abs(shown.lon - core.longitude) < 1e-9, "\(c.testDescription): page \(shown.lon), Core \(core.longitude)")
            }
        }
    }

    @Test("A moving member's marker glides on between updates, where Core predicts it")
    func extrapolatesLive() async throws {
        let store = await Fixtures.store()
        // Erin reports now, heading east at 10 m/s for up to 60 s.
        let tst = Int(Date().timeIntervalSince1970)
        try await Fixtures.move(Fixtures.erin, in: store, to: 52.6700, -8.6400, tst: tst, ve: 10, vn: 0, ms: 60)
        try await PageTests.withDashboard(store, path: "/#team") { page, _ in
            // Wait until the page shows Erin at least 20 m east of the reported fix: only
            // extrapolation can put her there, as no other update is sent.
            let east = LocalProjection(origin: Coordinate(latitude: 52.6700, longitude: -8.6400)).unproject(east: 20, north: 0)
            try await page.waitFor("""
                (() => { const g = document.querySelector('#map .member[data-user="erin"]');
                  return g && Number(g.dataset.lon) > \(east.longitude); })()
                """, timeout: .seconds(15))
            struct Shown: Decodable { var lat: Double; var lon: Double; var at: Double }
            let shown = try await page.value(Shown.self, """
                (() => { window.whereabouts.render(); const g = document.querySelector('#map .member[data-user="erin"]');
                  return { lat: Number(g.dataset.lat), lon: Number(g.dataset.lon), at: Date.now() / 1000 }; })()
                """)
            let message = Fixtures.location("er", tst: tst, lat: 52.6700, lon: -8.6400, ve: 10, vn: 0, ms: 60)
            let core = message.displayedPosition(at: Date(timeIntervalSince1970: shown.at))
            let gap = Geodesy.distance(core, Coordinate(latitude: shown.lat, longitude: shown.lon))
            #expect(gap < 3, "the page shows Erin \(gap) m from Core's prediction")
            try await page.screenshot(to: PageTests.screenshotPath("moving"))
        }
    }

    @Test("The circle selector switches circles and the page follows the new one live")
    func switchCircles() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor(PageTests.markerAt("bob", lat: 52.6680, lon: -8.6200))
            let options = try await page.value([String].self, "[...document.querySelectorAll('#circle option')].map((o) => o.value)")
            #expect(options == ["family", "team"])
            try await page.evaluate("(() => { const s = document.getElementById('circle'); s.value = 'team'; s.dispatchEvent(new Event('change')); })()")
            try await page.waitFor("document.querySelector('#map .member[data-user=\"erin\"]') && !document.querySelector('#map .member[data-user=\"bob\"]')")
            #expect(try await page.value(String.self, "location.hash") == "#team")
            try await Fixtures.move(Fixtures.alice, in: store, to: 52.6555, -8.6444)
            try await page.waitFor(PageTests.markerAt("alice", lat: 52.6555, lon: -8.6444))
        }
    }

    @Test("Each status looks different: classes on markers and list rows, and no marker without a fix")
    func statuses() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor("document.querySelectorAll('#members li').length === 4")
            struct Row: Decodable, Equatable { var user: String; var cls: String; var state: String; var ring: String }
            let rows = try await page.value([Row].self, """
                [...document.querySelectorAll('#members li')].map((li) => ({ user: li.dataset.user, cls: li.className,
                  state: li.querySelector('.state').textContent,
                  ring: getComputedStyle(li.querySelector('.swatch')).borderTopStyle + ' ' + getComputedStyle(li.querySelector('.swatch')).borderTopColor }))
                """)
            #expect(rows.map(\.user) == ["alice", "bob", "carol", "dave"])
            #expect(rows.map(\.cls) == ["online", "stale", "offline", "unknown"])
            #expect(rows.map(\.state) == ["online", "stale", "offline", "unknown"])
            #expect(Set(rows.map(\.ring)).count == 4, "four different status rings: \(rows.map(\.ring))")
            let markerClasses = try await page.value([String].self, "[...document.querySelectorAll('#map .member')].map((g) => g.getAttribute('class')).sort()")
            #expect(markerClasses == ["member offline", "member online", "member stale"])
            let dave = try await page.value(String.self, "document.querySelector('#members li[data-user=dave] .detail').textContent")
            #expect(dave == "no position yet")
            // Markers and list rows carry the display name's initials.
            let swatches = try await page.value([String].self, "[...document.querySelectorAll('#members .swatch')].map((e) => e.textContent)")
            #expect(swatches == ["Al", "Bo", "Ca", "Da"])
            let initials = try await page.value([String].self, "['Carol (car)', 'bob', 'Ünal Öz', '  '].map(window.whereabouts.initials)")
            #expect(initials == ["CC", "Bo", "ÜÖ", "?"])
        }
    }

    @Test("Honest presence looks different too: stationary and overdue on the map, gone only in the list")
    func presenceStatuses() async throws {
        var logger = Logger(label: "DashboardTests")
        logger.logLevel = .warning
        let circles = CirclesFile(circles: [
            Circle(id: "family", name: "Family", members: [Fixtures.alice, Fixtures.bob, Fixtures.carol]),
        ])
        let store = CircleViewStore(circles: circles, viewInterval: 0, logger: logger)
        let now = Date()
        let t = Int(now.timeIntervalSince1970)
        // Alice: last fix 20 min ago, heartbeats keep her promise: stationary.
        var alice = Fixtures.location("al", tst: t - 1_200, lat: 52.6638, lon: -8.6267)
        alice.due = t - 300
        await store.apply(.location(alice), from: Fixtures.alice.id, retained: true, at: now)
        await store.apply(.presence(online: true, since: t - 5_000, tst: t - 300, due: t + 600), from: Fixtures.alice.id, retained: false, at: now)
        // Bob promised a message 10 min ago that never came: overdue.
        var bob = Fixtures.location("bo", tst: t - 1_500, lat: 52.6680, lon: -8.6200)
        bob.due = t - 600
        await store.apply(.location(bob), from: Fixtures.bob.id, retained: true, at: now)
        // Carol: nothing for 40 days: gone.
        await store.apply(.location(Fixtures.location("ca", tst: t - 40 * 86_400, lat: 52.6600, lon: -8.6180)), from: Fixtures.carol.id, retained: true, at: now)
        _ = await store.collectDue(at: now)
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor("document.querySelectorAll('#members li').length === 3 && document.querySelectorAll('#map .member').length === 2")
            let classes = try await page.value([String].self, "[...document.querySelectorAll('#members li')].map((li) => li.className)")
            #expect(classes == ["stationary", "overdue", "gone"])
            let rings = try await page.value([String].self, """
                [...document.querySelectorAll('#members .swatch')].map((e) => getComputedStyle(e).borderTopStyle + ' ' + getComputedStyle(e).borderTopColor)
                """)
            #expect(Set(rings).count == 3, "three different looks: \(rings)")
            let markers = try await page.value([String].self, "[...document.querySelectorAll('#map .member')].map((g) => g.getAttribute('class')).sort()")
            #expect(markers == ["member overdue", "member stationary"], "gone is not on the map")
            let carol = try await page.value(String.self, "document.querySelector('#members li[data-user=carol] .detail').textContent")
            #expect(carol.hasPrefix("not on the map: nothing heard for 40 d"), "\(carol)")
            let badges = try await page.value(String.self, "document.getElementById('summary').textContent")
            #expect(badges.contains("1 stationary") && badges.contains("1 overdue") && badges.contains("1 gone"), "\(badges)")
        }
    }

    @Test("After the server restarts, the page reconnects by itself and shows what changed meanwhile")
    func reconnects() async throws {
        let store = await Fixtures.store()
        // Both servers log at debug into memory, shown if a server does not stop: two fresh-clone
        // CI runs hung somewhere in this test until its whole bound (60 s, then 150 s), which 15
        // runs alone and 3 runs of the whole suite here did not reproduce.
        let (logger, log) = Logger.capturing(label: "DashboardTests", level: .debug)
        func logTail() -> String {
            log.entries.suffix(40).map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n")
        }
        // 150 s in all: Chromium's start and the first page, then up to 60 s for the reconnection
        // (a fresh-clone CI run at load 14 hit the old 60 s bound of the whole run).
        do {
            try await run(store, logger: logger)
        } catch let error as TimeoutError {
            Issue.record("\(error); the servers' log:\n\(logTail())")
        }
    }

    private func run(_ store: CircleViewStore, logger: Logger) async throws {
        try await ServiceTests.withService(store, timeout: .seconds(150), logger: logger) { port, group in
            try await HeadlessChromium.withPage { page in
                try await page.navigate(to: "http://127.0.0.1:\(port)/#family")
                try await page.waitFor(PageTests.markerAt("alice", lat: Fixtures.aliceStart.lat, lon: Fixtures.aliceStart.lon))
                await group.triggerGracefulShutdown()
                try await page.waitFor("document.body.dataset.connection === 'closed'")
                #expect(try await page.value(String.self, "document.getElementById('connection').textContent").hasPrefix("reconnecting"))

                // Alice moves while the dashboard is down; a new server comes up on the same port.
                try await Fixtures.move(Fixtures.alice, in: store, to: 52.6702, -8.6111)
                let restarted = DashboardService(source: store, configuration: .init(port: port), logger: logger)
                let second = ServiceGroup(services: [restarted], logger: logger)
                let (secondStopped, secondStoppedSink) = AsyncStream.makeStream(of: Never.self)
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask {
                        defer { secondStoppedSink.finish() }
                        try await second.run()
                    }
                    // The page retries with backoff up to 10 s between attempts; on a loaded machine
                    // several attempts can fail before the new server listens.
                    try await page.waitFor(PageTests.markerAt("alice", lat: 52.6702, lon: -8.6111), timeout: .seconds(60))
                    #expect(try await page.value(String.self, "document.body.dataset.connection") == "open")
                    await second.triggerGracefulShutdown()
                    // Under the whole suite's load this shutdown sometimes did not end within
                    // 30 s (2 of 5 full runs on 2026-11-27). The one way found for it to hang: the
                    // server waited for connections that had sent no whole request (a browser's
                    // spare connection), which nothing closed on shutdown; it now closes them
                    // (ServiceTests/shutdownClosesSilentConnections), closes anything left 20 s
                    // after the shutdown began, and logs what it closed. Not seen in this test's
                    // own runs (17 under load 19 to 29 since: one WebSocket closed per server).
                    do {
                        try await withTimeout(.seconds(30), "the restarted dashboard to stop after its graceful shutdown") { for await _ in secondStopped {} }
                        try await tasks.waitForAll()
                    } catch {
                        tasks.cancelAll()  // a server that does not stop must not hold the test run; the failure stands
                        throw error
                    }
                }
            }
        }
    }
}

extension PageBehaviourTests {
    struct Background: Decodable {
        var tiles: [String]
        var gridLines: Int
        var attribution: String?
        var attributionElements: Int
    }

    /// What is under the markers: Leaflet's tile images, the grid's lines, and Leaflet's
    /// attribution control (absent without tiles).
    static let backgroundScript = """
    (() => { const attribution = document.querySelector('#map .leaflet-control-attribution');
      return { tiles: [...document.querySelectorAll('#map .leaflet-tile-pane img')].map((i) => i.getAttribute('src')),
        gridLines: document.querySelectorAll('#grid line').length,
        attribution: attribution ? attribution.textContent : null,
        attributionElements: attribution ? attribution.querySelectorAll('b, script').length : 0 }; })()
    """

    @Test("Without a tile URL the map is a metric grid and requests no tiles")
    func noTiles() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor("document.querySelectorAll('#map .member').length === 3")
            let background = try await page.value(Background.self, Self.backgroundScript)
            #expect(background.tiles.isEmpty)
            #expect(background.gridLines > 4)
            #expect(background.attribution == nil)
            let scale = try await page.value(String.self, "document.getElementById('scalelabel').textContent")
            #expect(scale.hasSuffix(" m") || scale.hasSuffix(" km"), "scale bar label: \(scale)")
            // The grid's spacing is half the scale bar's distance, on Core's sphere at the map's centre.
            struct Spacing: Decodable { var lines: [Double]; var bar: Double }
            let spacing = try await page.value(Spacing.self, """
                ({ lines: [...document.querySelectorAll('#grid line')].filter((l) => l.getAttribute('x1') === l.getAttribute('x2'))
                     .map((l) => Number(l.getAttribute('x1'))),
                   bar: document.getElementById('scalebarbar').getBoundingClientRect().width })
                """)
            let gaps = zip(spacing.lines.dropFirst(), spacing.lines).map { $0 - $1 }
            #expect(!gaps.isEmpty && gaps.allSatisfy { abs($0 * 2 - spacing.bar) < 6 }, "grid gaps \(gaps), scale bar \(spacing.bar) px")
        }
    }

    @Test("With a tile URL the map draws the tiles that cover the view, with the attribution as text")
    func tiles() async throws {
        let store = await Fixtures.store()
        // A loopback address nothing listens on: the test needs no network, the page still asks.
        let configuration = DashboardConfiguration(
            port: 0, tileURLTemplate: "http://127.0.0.1:9/{s}/{z}/{x}/{y}.png", tileAttribution: "© Test <b>tiles</b>"
        )
        try await PageTests.withDashboard(store, path: "/#family", configuration: configuration) { page, _ in
            try await page.waitFor("document.querySelectorAll('#map .member').length === 3")
            try await page.waitFor("document.querySelectorAll('#map .leaflet-tile-pane img').length > 0")
            let background = try await page.value(Background.self, Self.backgroundScript)
            #expect(background.gridLines == 0)
            #expect(background.attribution?.hasSuffix("© Test <b>tiles</b>") == true, "attribution: \(background.attribution ?? "none")")
            #expect(background.attributionElements == 0, "the operator's attribution is text, not HTML")
            let zoom = try await page.value(Double.self, "window.whereabouts.map.getZoom()")
            let z = Int(zoom.rounded())
            // Alice's tile at that zoom (standard XYZ tiling) is among those requested.
            let n = Double(1 << z)
            let latRad = Fixtures.aliceStart.lat * .pi / 180
            let x = Int((Fixtures.aliceStart.lon + 180) / 360 * n)
            let y = Int((1 - log(tan(latRad) + 1 / cos(latRad)) / .pi) / 2 * n)
            #expect(background.tiles.contains { $0.hasSuffix("/\(z)/\(x)/\(y).png") }, "tiles: \(background.tiles)")
            #expect(background.tiles.allSatisfy { $0.hasPrefix("http://127.0.0.1:9/") && !$0.contains("{") })
        }
    }
}

extension PageBehaviourTests {
    @Test("When the subscriber's circles file drops the shown circle, the page moves to one that exists")
    func circleRemoved() async throws {
        let store = await Fixtures.store()
        try await PageTests.withDashboard(store, path: "/#family") { page, _ in
            try await page.waitFor(PageTests.markerAt("bob", lat: 52.6680, lon: -8.6200))
            // The circles file is reloaded without "family" and with a new circle.
            let carpool = Circle(id: "carpool", name: "Carpool", members: [Fixtures.alice, Fixtures.erin])
            _ = await store.replaceCircles(CirclesFile(circles: [Fixtures.circles.circles[1], carpool]))
            _ = await store.collectDue()
            try await page.evaluate("window.whereabouts.refreshCircles()")
            let options = try await page.value([String].self, "[...document.querySelectorAll('#circle option')].map((o) => o.value)")
            #expect(options == ["team", "carpool"])
            try await page.waitFor("document.querySelector('#map .member[data-user=\"erin\"]') && !document.querySelector('#map .member[data-user=\"bob\"]')")
            #expect(try await page.value(String.self, "location.hash") == "#team")
        }
    }
}
