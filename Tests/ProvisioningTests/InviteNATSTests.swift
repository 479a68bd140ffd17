import Foundation
import Provisioning
import Testing
import WhereaboutsTestSupport

/// `whereabouts-sub invite --accounts nats`: the NATS accounts file, used by the shipped
/// three-node cluster (broker/nats/run-local-cluster) and reloaded on `--revoke`.
@Suite("Invites with NATS accounts")
struct InviteNATSTests {
    static let ready = InviteEndToEndTests.ready && ["/usr/sbin/nats-server", "/usr/bin/nats-server"].contains { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("The invited phone logs in to a NATS node, and is refused once --revoke reloaded the nodes",
          .enabled(if: ready), .timeLimit(.minutes(3)))
    func loginThenRefused() async throws {
        let (directory, circles) = try InviteEndToEndTests.makeAccountsFolder(prefix: "invite-nats")
        defer { try? FileManager.default.removeItem(at: directory) }

        func invite(accounts: URL, _ extra: [String] = []) async throws -> ToolRun.Output {
            try await ToolRun.run(try #require(InviteEndToEndTests.executable).path, [
                "invite", "--circles", circles.path, "--user", "alice", "--device", "phone", "--accounts", "nats",
                "--nats-accounts", accounts.path, "--broker-kind", "nats",
                "--password-dir", directory.appendingPathComponent("passwords").path,
                "--output-dir", directory.appendingPathComponent("out").path,
            ] + extra)
        }
        let made = try await invite(accounts: directory.appendingPathComponent("users.conf"))
        try #require(made.status == 0, "\(made.stdout)\(made.stderr)")
        var configuration = try JSONDecoder().decode(
            AppConfiguration.self, from: Data(contentsOf: directory.appendingPathComponent("out/alice-phone.otrc")))
        #expect(configuration.username == "alice")

        let cluster = try await NATSCluster.start(users: directory.appendingPathComponent("users.conf"))
        configuration.port = cluster.mqttPorts[0]  // the node's port is known only now
        func app() async throws -> ToolRun.Output {
            try await InviteEndToEndTests.runApp(configuration, in: directory, shape: "android",
                                                 ["--lat", "52.5", "--lon", "13.4", "--timeout", "10"], killAfter: 30)
        }
        let admitted = try await app()
        #expect(admitted.status == 0 && admitted.stdout.contains("\"connack\": 0"), "\(admitted.stdout)\(admitted.stderr)")

        let pidFiles = (1...3).flatMap { ["--reload-pid-file", cluster.directory.appendingPathComponent("node-\($0).pid").path] }
        let revoked = try await invite(accounts: cluster.directory.appendingPathComponent("users.conf"), ["--revoke"] + pidFiles)
        #expect(revoked.status == 0, "\(revoked.stdout)\(revoked.stderr)")
        // The nodes reload on SIGHUP in their own time: retry, at most 20 s.
        let deadline = ContinuousClock.now + .seconds(20)
        var refused: ToolRun.Output?
        while ContinuousClock.now < deadline {
            let attempt = try await app()
            if attempt.status == 3 { refused = attempt; break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(refused?.stdout.contains("\"connack\": 5") == true, "the revoked account still logs in")
        _ = await cluster.stop()
    }
}
