@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Subscriber
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// The history panel's outliers in a real headless Chromium (the open development mode): the
/// toggle lists and draws the rejected points of the range apart from the trail, and "Restore"
/// moves one into the trail through the API, audited.
@Suite("Dashboard page: rejected points and restore in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct PageOutliersTests {
    @Test("Show rejected points: listed with their reason, drawn apart; Restore puts one into the trail, audited")
    func showAndRestore() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let logger = Logger(label: "PageOutliersTests")
        let start = Int(Date().timeIntervalSince1970) - 3_600
        let member = Fixtures.alice.id
        var rows = Fixtures.aliceHeadingNorth(count: 10, from: start, every: 60, step: 0.001)
        rows.append(.rejected(member, LocationMessage(tid: "al", tst: start + 150, lat: 53.35, lon: -6.26, acc: 8),
                              reason: "implied_speed", receivedAt: Double(start + 151)))
        rows.append(.rejected(member, LocationMessage(tid: "al", tst: start + 330, lat: 52.70, lon: -8.60, acc: 9_000),
                              reason: "poor_accuracy", receivedAt: Double(start + 331)))
        let history = try await Fixtures.history(rows, in: directory, logger: logger)
        var configuration = DashboardConfiguration(port: 0)
        configuration.history = history

        let store = await Fixtures.store()
        let app = DashboardApplication.make(source: store, configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await HeadlessChromium.withPage { page in
                try await page.navigate(to: "http://127.0.0.1:\(port)/", until: "document.body.dataset.connection === 'open'")
                try await page.waitFor("!document.getElementById('history').hidden && [...document.getElementById('history-member').options].some((o) => o.value === 'alice/phone')")
                // Off by default: the trail alone.
                _ = try await page.evaluate("(() => { document.getElementById('history-member').value = 'alice/phone'; document.getElementById('history-show').click(); return true; })()")
                try await page.waitFor("document.getElementById('history').dataset.points === '10'")
                #expect(try await page.value(Int.self, "document.querySelectorAll('#map path.history-rejected').length") == 0)
                #expect(try await page.value(Int.self, "document.querySelectorAll('#history-rejected li').length") == 0)

                _ = try await page.evaluate("(() => { const c = document.getElementById('history-show-rejected'); c.checked = true; c.dispatchEvent(new Event('change')); return true; })()")
                try await page.waitFor("document.getElementById('history').dataset.rejected === '2'")
                #expect(try await page.value(Int.self, "document.querySelectorAll('#map path.history-rejected').length") == 2)
                #expect(try await page.value(Int.self, "document.querySelectorAll('#map path.history-trail').length") == 1)
                let items = try await page.value([String].self, "[...document.querySelectorAll('#history-rejected li.history-rejected-item')].map((li) => li.textContent)")
                #expect(items.count == 2 && items[0].contains("implausible jump") && items[1].contains("poor accuracy (9000 m)"), "\(items)")
                #expect(try await page.value(String.self, "document.getElementById('history-restore-all').textContent") == "Restore all 2")

                // Restore the jump (confirmed): the trail gains it, the list loses it, the audit log has it.
                _ = try await page.evaluate("(() => { window.confirm = () => true; document.querySelector('.history-restore[data-tst=\"\(start + 150)\"]').click(); return true; })()")
                try await page.waitFor("document.getElementById('history').dataset.points === '11' && document.getElementById('history').dataset.rejected === '1'")
                #expect(try await page.value(String.self, "document.getElementById('history-status').textContent").hasPrefix("Restored 1 location."))
                #expect(try await page.value(Int.self, "document.querySelectorAll('#map path.history-rejected').length") == 1)
                let audit = try await page.value(String.self, "fetch('api/0/audit').then((r) => r.text())")
                #expect(audit.contains("\"action\":\"restore\"") && audit.contains("\"from\":\(start + 150)") && audit.contains("\"removed\":1"))
                try await page.screenshot(to: PageTests.screenshotPath("history-rejected"))

                // A refusal (cancelled confirmation) changes nothing.
                _ = try await page.evaluate("(() => { window.confirm = () => false; document.querySelector('.history-restore').click(); return true; })()")
                #expect(try await page.value(String.self, "document.getElementById('history').dataset.rejected") == "1")
                #expect(try await page.value(Int.self, "document.querySelectorAll('#history-restore-all').length") == 0, "one point: no 'all'")
            }
        }
        #expect(try await history.locations(of: member, from: 0, to: .max, limit: 100).map(\.fix.tst).contains(start + 150))
        #expect(try await history.rejectedLocations(of: member, from: 0, to: .max, limit: 100).map(\.location.fix.tst) == [start + 330])
    }

    @Test("Restore all: every rejected point of the range in one audited request")
    func restoreAll() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let logger = Logger(label: "PageOutliersTests")
        let start = Int(Date().timeIntervalSince1970) - 3_600
        let member = Fixtures.alice.id
        var rows = Fixtures.aliceHeadingNorth(count: 5, from: start, every: 60, step: 0.001)
        for (i, reason) in ["implied_speed", "poor_accuracy", "implied_speed"].enumerated() {
            rows.append(.rejected(member, LocationMessage(tid: "al", tst: start + 30 + i * 60, lat: 53.35, lon: -6.26, acc: 8),
                                  reason: reason, receivedAt: Double(start + 31 + i * 60)))
        }
        let history = try await Fixtures.history(rows, in: directory, logger: logger)
        var configuration = DashboardConfiguration(port: 0)
        configuration.history = history
        let app = DashboardApplication.make(source: await Fixtures.store(), configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await HeadlessChromium.withPage { page in
                try await page.navigate(to: "http://127.0.0.1:\(port)/", until: "document.body.dataset.connection === 'open'")
                try await page.waitFor("!document.getElementById('history').hidden && [...document.getElementById('history-member').options].some((o) => o.value === 'alice/phone')")
                _ = try await page.evaluate("""
                    (() => { document.getElementById('history-member').value = 'alice/phone';
                      const c = document.getElementById('history-show-rejected'); c.checked = true;
                      document.getElementById('history-show').click(); return true; })()
                    """)
                try await page.waitFor("document.getElementById('history').dataset.points === '5' && document.getElementById('history').dataset.rejected === '3'")
                _ = try await page.evaluate("(() => { window.confirm = () => true; document.getElementById('history-restore-all').click(); return true; })()")
                try await page.waitFor("document.getElementById('history').dataset.points === '8' && document.getElementById('history').dataset.rejected === '0'")
                #expect(try await page.value(String.self, "document.getElementById('history-status').textContent").hasPrefix("Restored 3 locations."))
            }
        }
        #expect(try await history.rejectedLocations(of: member, from: 0, to: .max, limit: 100).isEmpty)
        #expect(try await history.auditLog().map { "\($0.action) \($0.actor) \($0.removed)" } == ["restore open 3"])
    }
}
