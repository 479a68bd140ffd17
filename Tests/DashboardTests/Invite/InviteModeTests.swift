@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Provisioning
import Testing
import WhereaboutsTestSupport

/// The invite routes where no admin can exist: without `--invite-accounts` (no desk) and in the
/// open mode (no `--users`), which has no accounts and so no admins.
@Suite("Dashboard invites: switched off, and refused in the open mode")
struct InviteModeTests {
    static func post(_ client: some TestClientProtocol) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(
            uri: "/api/circles/family/invites", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"user":"dave","device":"phone"}"#)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    @Test("Without --invite-accounts the page gets no button and the route says how to turn it on")
    func switchedOff() async throws {
        try await APITests.application(await Fixtures.store()).test(.router) { client in
            let list = try await client.execute(uri: "/api/invites", method: .get) { String(buffer: $0.body) }
            #expect(list == #"{"circles":[],"enabled":false}"#)
            let (status, body) = try await Self.post(client)
            #expect(status == .notFound && body.contains("invites_disabled") && body.contains("--invite-accounts"), "\(body)")
        }
    }

    @Test("In the open mode nobody is an admin: 403 invite_needs_login, and the circles file is untouched")
    func openModeRefused() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "invite-open")
        defer { try? FileManager.default.removeItem(at: directory) }
        let circles = directory.appendingPathComponent("circles.yaml")
        try InviteRig.circles.write(to: circles, atomically: true, encoding: .utf8)
        var configuration = DashboardConfiguration(port: 0)
        configuration.invites = InviteDesk(inviter: Inviter(
            settings: .init(circlesPath: circles.path, host: "127.0.0.1", port: 1883, tls: false),
            accounts: .store(.nats(.init(path: directory.appendingPathComponent("users.conf").path, passwordDirectory: directory.path)))))
        try await APITests.application(await Fixtures.store(), configuration: configuration).test(.router) { client in
            let list = try await client.execute(uri: "/api/invites", method: .get) { String(buffer: $0.body) }
            #expect(list == #"{"circles":[],"enabled":true}"#)
            let (status, body) = try await Self.post(client)
            #expect(status == .forbidden && body.contains("invite_needs_login") && body.contains("--users"), "\(body)")
            let revoke = try await client.execute(uri: "/api/circles/work/invites/alice/phone", method: .delete) { $0.status }
            #expect(revoke == .forbidden)
        }
        #expect(try String(contentsOf: circles, encoding: .utf8) == InviteRig.circles)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("users.conf").path))
    }
}
