import Foundation
@testable import Provisioning
import Testing
import WhereaboutsTestSupport

/// The invite dialog in real headless Chromium, served by the real `whereabouts-sub` (see
/// ``InviteRig``): a circle admin logs in, opens the dialog, sees an error in words, invites, and
/// the QR code on the page is read back by zbarimg; then revokes.
@Suite("Dashboard page: the invite dialog, in headless Chromium", .serialized, .enabled(if: HeadlessChromium.isInstalled && InviteRig.ready))
struct PageInviteTests {
    @Test("An admin invites a phone from the dialog: the QR code scans to the configuration; errors show in the dialog; revoke", .timeLimit(.minutes(3)))
    func inviteFromTheDialog() async throws {
        let rig = try await InviteRig.start(appBroker: "mqtts://broker.example.org:8883")
        var stopped = false
        defer { if !stopped { rig.subscriber.signal(SIGKILL) } }
        let base = "http://127.0.0.1:\(rig.port)"
        let qr = try await HeadlessChromium.withPage(width: 900, height: 760) { page in
            try await page.navigate(to: base + "/login", until: "true")
            try await PageHistoryTests.waitAcrossNavigation(page, "location.pathname === '/login' && document.readyState === 'complete'")
            _ = try await page.evaluate("""
                (() => { document.getElementById('user').value = 'ann';
                  document.getElementById('password').value = '\(InviteRig.password)';
                  document.getElementById('login').submit(); return true; })()
                """)
            try await PageHistoryTests.waitAcrossNavigation(page, "location.pathname === '/' && document.body.dataset.invites === 'ready'")
            #expect(try await page.value([String].self, "[...document.getElementById('invite-circle').options].map((o) => o.value)") == ["family", "work"])
            _ = try await page.evaluate("(document.getElementById('invite-open').click(), true)")
            #expect(try await page.value(Bool.self, "document.getElementById('invite').open"))

            // A name the topic cannot hold: the route's sentence shows in the dialog.
            _ = try await page.evaluate("""
                (() => { document.getElementById('invite-circle').value = 'family';
                  document.getElementById('invite-user').value = 'da ve';
                  document.getElementById('invite-device').value = 'phone';
                  document.getElementById('invite-form').requestSubmit(); return true; })()
                """)
            let error = try await page.waitFor("!document.getElementById('invite-error').hidden && document.getElementById('invite-error').textContent")
            #expect(error.contains("must be 1 to 64 letters") && error.contains("topic level"), "\(error)")

            _ = try await page.evaluate("""
                (() => { document.getElementById('invite-user').value = 'dave';
                  document.getElementById('invite-tid').value = 'dv';
                  document.getElementById('invite-form').requestSubmit(); return true; })()
                """)
            try await page.waitFor("document.body.dataset.invite === 'shown' && document.getElementById('invite-qr').complete && document.getElementById('invite-qr').naturalWidth > 0")
            #expect(try await page.value(Bool.self, "document.getElementById('invite-error').hidden"))
            let summary = try await page.value(String.self, "document.getElementById('invite-summary').textContent")
            #expect(summary.contains("dave/phone logs in as dave") && summary.contains("Added to family"), "\(summary)")
            #expect(try await page.value(String.self, "document.getElementById('invite-otrc').download") == "dave-phone.otrc")
            #expect(try await page.value(Bool.self, "document.getElementById('invite-otrc').href.startsWith('blob:')"))
            try await page.screenshot(to: PageTests.screenshotPath("invite-dialog"))
            let src = try await page.value(String.self, "document.getElementById('invite-qr').src")
            let link = try await page.value(String.self, "document.getElementById('invite-link').getAttribute('href')")

            // Revoke: the first click asks, the second does it.
            _ = try await page.evaluate("(document.getElementById('invite-revoke').click(), true)")
            let asked = try await page.value(String.self, "document.getElementById('invite-revoke').textContent")
            #expect(asked.contains("dave/phone") && asked.contains("every circle"), "\(asked)")
            _ = try await page.evaluate("(document.getElementById('invite-revoke').click(), true)")
            try await page.waitFor("document.body.dataset.invite === 'revoked'")
            #expect(try await page.value(String.self, "document.getElementById('invite-done').textContent").contains("Removed dave/phone"))
            return (src: src, link: link)
        }

        // The QR code the page showed, read by zbar: the link, holding what the phone imports.
        let prefix = "data:image/png;base64,"
        #expect(qr.src.hasPrefix(prefix))
        let png = rig.directory.appendingPathComponent("dialog-qr.png")
        try Data(base64Encoded: String(qr.src.dropFirst(prefix.count)))?.write(to: png)
        let scanned = try await ToolRun.run("/usr/bin/zbarimg", ["--raw", "-q", png.path])
        let link = scanned.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(scanned.status == 0 && link == qr.link, "\(scanned.stderr)")
        let configuration = try AppConfiguration(link: link)
        #expect(configuration.host == "broker.example.org" && configuration.port == 8883 && configuration.tls)
        #expect(configuration.username == "dave" && configuration.deviceId == "phone" && configuration.tid == "dv")
        #expect(configuration.subTopic == "whereabouts-circles-family/#")
        #expect(try !String(contentsOfFile: rig.circlesPath, encoding: .utf8).contains("dave"))

        stopped = true
        await rig.stop()
    }
}
