@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Subscriber
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// The login form and the history panel in a real headless Chromium: log in through the form
/// (the browser keeps the session cookie), pick a member and a range, draw the trail from the
/// history, play it back, and export it as GPX through the API.
@Suite("Dashboard page: login and history in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct PageHistoryTests {
    static let password = "a long test password"

    /// Fills the login form as alice and submits it (the page navigates).
    static func submitLogin(_ page: DevToolsPage, password: String) async throws {
        _ = try await page.evaluate("""
            (() => { document.getElementById('user').value = 'alice';
              document.getElementById('password').value = '\(password)';
              document.getElementById('login').submit(); return true; })()
            """)
    }

    /// Waits (at most 30 s) until `condition` holds in whatever document the page shows: a form
    /// submission replaces the document, which ends any wait running inside the old one.
    static func waitAcrossNavigation(_ page: DevToolsPage, _ condition: String) async throws {
        try await waitUntil(condition, timeout: .seconds(30), interval: .milliseconds(50)) {
            (try? await page.value(Bool.self, "Boolean(\(condition))")) == true
        }
    }

    @Test("Log in through the form, draw a member's trail from the history, play it back, export GPX")
    func loginTrailPlaybackExport() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let logger = Logger(label: "PageHistoryTests")
        // 120 points of Alice over the last hour, heading north.
        let start = Int(Date().timeIntervalSince1970) - 3_600
        var configuration = DashboardConfiguration(port: 0)
        configuration.history = try await Fixtures.history(
            Fixtures.aliceHeadingNorth(count: 120, from: start, every: 30, step: 0.0005), in: directory, logger: logger)
        configuration.login = try await Fixtures.logins(["alice"], password: Self.password, in: directory, logger: logger).authenticator

        let store = await Fixtures.store()
        let app = DashboardApplication.make(source: store, configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await HeadlessChromium.withPage { page in
                // The login page is static: no DOM change wakes the page's own wait, so these poll.
                try await page.navigate(to: "http://127.0.0.1:\(port)/", until: "true")
                try await Self.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
                try await Self.submitLogin(page, password: "wrong")
                try await Self.waitAcrossNavigation(page, "location.pathname === '/login' && document.getElementById('message').textContent.includes('wrong')")
                try await Self.submitLogin(page, password: Self.password)
                try await Self.waitAcrossNavigation(page, "location.pathname === '/' && document.body.dataset.connection === 'open'")
                #expect(try await page.value(String.self, "document.cookie") == "", "the session cookie is HttpOnly: scripts never see it")
                try await page.waitFor("!document.getElementById('logout').hidden && document.getElementById('whoami').textContent === 'alice'")

                // The history panel: Alice's own trail.
                try await page.waitFor("!document.getElementById('history').hidden && [...document.getElementById('history-member').options].some((o) => o.value === 'alice/phone')")
                _ = try await page.evaluate("(() => { document.getElementById('history-member').value = 'alice/phone'; document.getElementById('history-show').click(); return true; })()")
                try await page.waitFor("document.getElementById('history').dataset.points === '120'")
                #expect(try await page.value(Int.self, "document.querySelectorAll('#map path.history-trail').length") == 1)
                #expect(try await page.value(String.self, "document.getElementById('history').dataset.lat") == "52.6600000")
                #expect(try await page.value(String.self, "document.getElementById('history').dataset.tst") == "\(start)")

                // Play back at 3600×: an hour in about a second; the marker moves north and stops at the end.
                _ = try await page.evaluate("(() => { document.getElementById('history-speed').value = '3600'; document.getElementById('history-play').click(); return true; })()")
                try await page.waitFor("Number(document.getElementById('history').dataset.tst) > \(start + 300)")
                #expect(try await page.value(Double.self, "Number(document.getElementById('history').dataset.lat)") > 52.66)
                try await page.waitFor("document.getElementById('history').dataset.playing === 'false'", timeout: .seconds(20))
                #expect(try await page.value(String.self, "document.getElementById('history').dataset.tst") == "\(start + 119 * 30)")
                #expect(try await page.value(String.self, "document.getElementById('history').dataset.lat") == String(format: "%.7f", 52.66 + 119 * 0.0005))

                // Export: the GPX link, fetched with the page's session, holds the 120 points in order.
                let href = try await page.value(String.self, "document.getElementById('history-gpx').href")
                #expect(href.contains("format=gpx") && href.contains("user=alice") && href.contains("device=phone"))
                let gpx = try await page.value(String.self, "fetch(document.getElementById('history-gpx').href).then((r) => r.text())")
                #expect(gpx.hasPrefix("<?xml") && gpx.components(separatedBy: "<trkpt ").count - 1 == 120)
                #expect(try await page.value(String.self, "document.getElementById('history-geojson').href").contains("format=geojson"))
                try await page.screenshot(to: PageTests.screenshotPath("history"))

                // Corrections from the page: the point under the marker (the last one), confirmed.
                _ = try await page.evaluate("(() => { window.confirm = () => true; document.getElementById('history-delete-point').click(); return true; })()")
                try await page.waitFor("document.getElementById('history').dataset.points === '119'")
                #expect(try await page.value(String.self, "document.getElementById('history-status').textContent").hasPrefix("Deleted 1 location."))
                let audit = try await page.value(String.self, "fetch('api/0/audit').then((r) => r.text())")
                #expect(audit.contains("\"actor\":\"alice\"") && audit.contains("\"from\":\(start + 119 * 30)") && audit.contains("\"removed\":1"))

                // Log out: the page is gone, the cookie no longer opens it.
                _ = try await page.evaluate("(() => { document.getElementById('logout').submit(); return true; })()")
                try await Self.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
                try await page.navigate(to: "http://127.0.0.1:\(port)/", until: "true")
                try await Self.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
            }
        }
    }
}
