@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Subscriber
import Testing
import WhereaboutsTestSupport

/// Issue 24 in a real browser: the page's live WebSocket closes when its session ends, and the
/// page lands on the login form, after a logout made elsewhere with the same cookie and after the
/// account's password was changed in the users file.
@Suite("Dashboard page: the live socket closes when the login ends, in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled))
struct PageRevocationTests {
    static let password = PageHistoryTests.password
    /// How soon the page must be on the login form after its access ended. The socket itself
    /// closes within a second (SessionRevocationTests); here a navigation and a page load in
    /// headless Chromium come on top, on two cores shared with the whole parallel suite.
    static let bound = Duration.seconds(5)

    @Test("Logout elsewhere and a changed password close the page's socket; the page goes to the login form")
    func socketClosesWithTheSession() async throws {
        var logger = Logger(label: "PageRevocationTests")
        logger.logLevel = .critical
        var configuration = DashboardConfiguration(port: 0)
        let (authenticator, users) = try await Fixtures.logins(["alice"], password: Self.password, in: try TestPaths.makeTemporaryDirectory(), logger: logger)
        configuration.login = authenticator
        let app = DashboardApplication.make(source: await Fixtures.store(), configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await HeadlessChromium.withPage { page in
                func logIn() async throws {
                    // The login page is static: no DOM change wakes the page's own wait, so this polls.
                    try await page.navigate(to: "http://127.0.0.1:\(port)/login", until: "true")
                    try await PageHistoryTests.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
                    try await PageHistoryTests.submitLogin(page, password: Self.password)
                    try await PageHistoryTests.waitAcrossNavigation(page, "location.pathname === '/' && document.body.dataset.connection === 'open'")
                }
                try await logIn()
                // Logged out elsewhere with the same cookie (a fetch, so this page stays): its
                // socket is closed with 1008 and the page goes to the login form.
                let loggedOut = ContinuousClock.now
                _ = try await page.evaluate("(fetch('logout', { method: 'POST' }), true)")
                try await PageHistoryTests.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
                #expect(ContinuousClock.now - loggedOut < Self.bound, "on the login form \(ContinuousClock.now - loggedOut) after the logout")
                #expect(authenticator.metricsText().contains("whereabouts_dashboard_websockets_revoked_total 1"))

                // Logged in again; the password changes in the users file.
                try await logIn()
                let changed = ContinuousClock.now
                try UsersFile.load(path: users.path).settingPassword(await PasswordHashing.hash("a new long password", cost: 4), for: "alice").write(to: users.path)
                try await PageHistoryTests.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
                #expect(ContinuousClock.now - changed < Self.bound, "on the login form \(ContinuousClock.now - changed) after the password change")
                #expect(authenticator.metricsText().contains("whereabouts_dashboard_websockets_revoked_total 2"))
            }
        }
    }
}
