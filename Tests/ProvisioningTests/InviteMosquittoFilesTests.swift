import Foundation
import Provisioning
import Testing
import WhereaboutsTestSupport

/// `whereabouts-sub invite --accounts mosquitto`: the ACL file and mosquitto's password file
/// (through the real `mosquitto_passwd`), checked by a real mosquitto that reads them.
@Suite("Invites with mosquitto's ACL and password files")
struct InviteMosquittoFilesTests {
    @Test("The invited phone logs in with the files invite wrote, and is refused after --revoke",
          .enabled(if: InviteEndToEndTests.ready), .timeLimit(.minutes(2)))
    func loginThenRefused() async throws {
        let (directory, circles) = try InviteEndToEndTests.makeAccountsFolder(prefix: "invite-acl")
        defer { try? FileManager.default.removeItem(at: directory) }
        let acl = directory.appendingPathComponent("acl")
        let passwd = directory.appendingPathComponent("passwd")
        try "# written by invite\n".write(to: acl, atomically: true, encoding: .utf8)
        try Data().write(to: passwd)
        let broker = try await Broker.start(.init(allowAnonymous: false, passwordFile: passwd.path, aclFile: acl.path))

        func invite(_ extra: [String] = []) async throws -> ToolRun.Output {
            try await ToolRun.run(try #require(InviteEndToEndTests.executable).path, [
                "invite", "--circles", circles.path, "--user", "alice", "--device", "phone", "--accounts", "mosquitto",
                "--acl-file", acl.path, "--mosquitto-password-file", passwd.path,
                "--password-dir", directory.appendingPathComponent("passwords").path,
                "--output-dir", directory.appendingPathComponent("out").path, "--app-broker", "mqtt://127.0.0.1:\(broker.port)",
            ] + extra)
        }
        func app(_ configuration: AppConfiguration) async throws -> ToolRun.Output {
            try await InviteEndToEndTests.runApp(configuration, in: directory, shape: "android",
                                                 ["--lat", "52.5", "--lon", "13.4", "--timeout", "10"], killAfter: 30)
        }

        let made = try await invite()
        try #require(made.status == 0, "\(made.stdout)\(made.stderr)")
        let configuration = try JSONDecoder().decode(
            AppConfiguration.self, from: Data(contentsOf: directory.appendingPathComponent("out/alice-phone.otrc")))
        #expect(configuration.username == "alice" && configuration.port == broker.port && configuration.encryptionKey == nil)
        let rules = try String(contentsOf: acl, encoding: .utf8)
        #expect(rules.contains("user alice\ntopic readwrite owntracks/alice/#") && rules.contains("topic read whereabouts-circles-family/#"))
        try await broker.restart()  // mosquitto reads both files again (as on SIGHUP with --reload-pid-file)
        let admitted = try await app(configuration)
        #expect(admitted.status == 0 && admitted.stdout.contains("\"connack\": 0"), "\(admitted.stdout)\(admitted.stderr)")

        let revoked = try await invite(["--revoke"])
        #expect(revoked.status == 0, "\(revoked.stdout)\(revoked.stderr)")
        let passwords = try String(contentsOf: passwd, encoding: .utf8)
        #expect(!passwords.contains("alice:"))
        try await broker.restart()
        let refused = try await app(configuration)
        #expect(refused.status == 3 && refused.stdout.contains("\"connack\": 5"), "\(refused.stdout)\(refused.stderr)")
        await broker.stop()
    }
}
