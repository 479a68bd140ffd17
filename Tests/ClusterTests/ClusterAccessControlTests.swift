import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
import SystemSupport

/// `whereabouts-sub acl --format nats` on the shipped cluster: the accounts it writes, loaded by
/// every node, keep each member to their own topics and their circles' views.
@Suite("Access control on the NATS cluster", .serialized, .enabled(if: TestPaths.builtExecutable(named: "whereabouts-sub") != nil))
struct ClusterAccessControlTests {
    static let circles = TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml")

    static func password(_ user: String, in directory: URL) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(user), encoding: .utf8).trimmingCharacters(in: .newlines)
    }

    /// The members of circle `circle` in a view's JSON with a fix, as `user/device`.
    static func membersWithFix(in payload: Data) -> Set<String> {
        guard let view = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
              let members = view["members"] as? [[String: Any]] else { return [] }
        return Set(members.compactMap { member in
            guard member["fix"] is [String: Any], let user = member["user"] as? String, let device = member["device"] as? String else { return nil }
            return "\(user)/\(device)"
        })
    }

    @Test("A member cannot read another circle's view nor publish as someone else through the cluster; a wrong password is refused; regenerated accounts are reloaded by every node")
    func privacy() async throws {
        let sub = try #require(TestPaths.builtExecutable(named: "whereabouts-sub"))
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "cluster-acl")
        defer { try? FileManager.default.removeItem(at: dir) }
        let passwords = dir.appendingPathComponent("passwords")
        try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
        let users = dir.appendingPathComponent("users.conf")
        let circlesPath = dir.appendingPathComponent("circles.yaml")
        let original = try String(contentsOf: Self.circles, encoding: .utf8)
        try original.write(to: circlesPath, atomically: true, encoding: .utf8)
        let generated = try await ToolRun.run(sub.path, [
            "acl", "--format", "nats", "--circles", circlesPath.path, "--password-dir", passwords.path, "--output", users.path,
        ])
        #expect(generated.status == 0, "\(generated.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: users.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let cluster = try await NATSCluster.start(users: users)

        let subscriber = try ChildProcess.spawn(sub.path, [
            "--circles", circlesPath.path, "--broker", cluster.brokerList(), "--broker-kind", "nats", "--state-file", "none",
            "--username", "whereabouts-sub", "--password-file", passwords.appendingPathComponent("whereabouts-sub").path,
        ], logFile: dir.appendingPathComponent("sub.log"))
        defer { subscriber.signal(SIGKILL) }  // a failed expectation must not leave it running

        // bob is in family and field-team, not in carpool.
        let bob = cluster.client("bob-dashboard", node: 1) { $0.credentials = .init(username: "bob", password: try? Self.password("bob", in: passwords)) }
        let received = LockedState<[MQTTMessage]>([])
        let stream = bob.messages
        let recording = Task { for await message in stream { received.withLock { $0.append(message) } } }
        try await bob.connect()
        try await bob.subscribe(to: "whereabouts/circles/family/view", qos: .atLeastOnce)
        // NATS refuses the subscription or never delivers on it; either way nothing may arrive.
        try? await bob.subscribe(to: "whereabouts/circles/carpool/view", qos: .atLeastOnce, timeout: .seconds(10))

        // alice forges a fix as bob, then publishes her own.
        let alice = cluster.client("whereabouts-alice-phone", node: 2) { $0.credentials = .init(username: "alice", password: try? Self.password("alice", in: passwords)) }
        try await alice.connect()
        let now = Int(Date().timeIntervalSince1970)
        let forged = #"{"_type":"location","tid":"bo","lat":10,"lon":10,"acc":5,"tst":\#(now)}"#
        try? await alice.publish(to: "owntracks/bob/phone", payload: Data(forged.utf8), qos: .atLeastOnce, retain: true)
        let own = #"{"_type":"location","tid":"al","lat":52.3,"lon":-8.3,"acc":5,"tst":\#(now)}"#
        try await alice.publish(to: "owntracks/alice/phone", payload: Data(own.utf8), qos: .atLeastOnce, retain: true)

        try await waitUntil("bob sees alice in family", timeout: .seconds(30)) {
            received.withLock { $0.contains { $0.topic == "whereabouts/circles/family/view" && Self.membersWithFix(in: $0.payload).contains("alice/phone") } }
        }
        let messages = received.withLock { $0 }
        #expect(messages.allSatisfy { !$0.topic.contains("carpool") }, "bob got carpool's view")
        let newestFamily = try #require(messages.last { $0.topic == "whereabouts/circles/family/view" })
        #expect(!Self.membersWithFix(in: newestFamily.payload).contains("bob/phone"), "alice's forged fix for bob reached the view")

        // A wrong password is refused with a clear error, naming no secret.
        let thief = cluster.client("thief", node: 0) { $0.credentials = .init(username: "bob", password: "guess") }
        await #expect(throws: MQTTError.self) { try await thief.connect() }

        // bob joins carpool: the regenerated accounts replace the file the nodes include (the
        // script's copy in its folder) and every node reloads it (SIGHUP); the subscriber
        // rereads the circles file on its own; now bob may read carpool's view.
        let carpool = original.replacingOccurrences(
            of: "  - id: carpool\n    name: Carpool\n    members:\n",
            with: "  - id: carpool\n    name: Carpool\n    members:\n      - user: bob\n        device: phone\n        name: Bob\n")
        #expect(carpool != original)
        try carpool.write(to: circlesPath, atomically: true, encoding: .utf8)
        let reloaded = try await ToolRun.run(sub.path, [
            "acl", "--format", "nats", "--circles", circlesPath.path, "--password-dir", passwords.path,
            "--output", cluster.directory.appendingPathComponent("users.conf").path,
        ] + (1...3).flatMap { ["--reload-pid-file", cluster.directory.appendingPathComponent("node-\($0).pid").path] })
        #expect(reloaded.status == 0, "\(reloaded.stderr)")
        #expect(reloaded.stderr.components(separatedBy: "to reload").count - 1 == 3)
        try await waitUntil("bob reads carpool after the reload", timeout: .seconds(30), interval: .milliseconds(500)) {
            try? await bob.subscribe(to: "whereabouts/circles/carpool/view", qos: .atLeastOnce, timeout: .seconds(5))
            return received.withLock { $0.contains { $0.topic == "whereabouts/circles/carpool/view" } }
        }

        // The subscriber with a wrong password: each node named with the cause in the log, then
        // one clear error and exit 1, not a crash loop.
        let wrong = dir.appendingPathComponent("wrong-password")
        try "not-the-password\n".write(to: wrong, atomically: true, encoding: .utf8)
        let refusedLog = dir.appendingPathComponent("refused.log")
        let refused = try ChildProcess.spawn(sub.path, [
            "--circles", circlesPath.path, "--broker", cluster.brokerList(), "--broker-kind", "nats", "--state-file", "none",
            "--username", "whereabouts-sub", "--password-file", wrong.path, "--client-id", "whereabouts-sub-wrong",
        ], logFile: refusedLog)
        defer { refused.signal(SIGKILL) }
        let status = try await withTimeout(.seconds(60), "the refused subscriber to exit") { await refused.waitForExit() }
        #expect(status != 0)
        let refusedText = (try? String(contentsOf: refusedLog, encoding: .utf8)) ?? ""
        for port in cluster.mqttPorts {
            #expect(refusedText.contains("whereabouts.mqtt.host=127.0.0.1:\(port)"), "node :\(port) not named: \(refusedText.suffix(1500))")
        }
        #expect(refusedText.lowercased().contains("password") || refusedText.lowercased().contains("credentials"), "\(refusedText.suffix(800))")

        recording.cancel()
        await alice.disconnect()
        await bob.disconnect()
        subscriber.signal(SIGTERM)
        _ = await subscriber.waitForExit()
        await cluster.stop()
    }
}
