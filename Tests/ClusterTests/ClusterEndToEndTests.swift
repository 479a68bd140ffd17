import Foundation
import InMemoryLogging
import Logging
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
import SystemSupport

/// The real `whereabouts-pub` and `whereabouts-sub` against the shipped three-node NATS cluster,
/// each given every node (`--broker` list, `--broker-kind nats`), while the nodes are killed.
@Suite(
    "Whereabouts end to end on the NATS cluster", .serialized,
    .enabled(if: TestPaths.builtExecutable(named: "whereabouts-pub") != nil && TestPaths.builtExecutable(named: "whereabouts-sub") != nil))
struct ClusterEndToEndTests {
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx")

    static let circles = """
        circles:
          - id: family
            members:
              - {user: alice, device: phone, name: Alice}
        """

    /// A session on node `node` (failing over to the others), persistent at QoS 1 unless told
    /// otherwise, that collects the `tst` of every location on `owntracks/alice/phone`.
    static func recorder(
        _ clientID: String, on node: Int, of cluster: NATSCluster, persistent: Bool = true, qos: QoS = .atLeastOnce
    ) async throws -> (MQTTClient, LockedState<Set<Int>>, Task<Void, Never>, InMemoryLogHandler) {
        var configuration = cluster.clientConfiguration(clientID: clientID, node: node)
        configuration.cleanSession = !persistent
        configuration.failover = (0..<3).filter { $0 != node }.map { MQTTConfiguration.Endpoint(host: "127.0.0.1", port: cluster.mqttPorts[$0]) }
        let (logger, log) = Logger.capturing(label: clientID, level: .info)
        let client = MQTTClient(configuration: configuration, logger: logger)
        let received = LockedState<Set<Int>>([])
        let messages = client.messages
        let recording = Task { for await message in messages { if let tst = tst(of: message.payload) { received.withLock { _ = $0.insert(tst) } } } }
        try await client.connect()
        try await client.subscribe(to: "owntracks/alice/phone", qos: qos)
        return (client, received, recording, log)
    }

    static func tst(of payload: Data) -> Int? {
        (try? JSONSerialization.jsonObject(with: payload) as? [String: Any])?["tst"] as? Int
    }

    /// The `tst` of every location the history file holds, read with Debian's `sqlite3` once the
    /// subscriber has stopped; `nil` when it cannot be read.
    static func historyTsts(_ file: URL) async -> Set<Int>? {
        guard let result = try? await ToolRun.run("/usr/bin/sqlite3", ["-readonly", file.path, "SELECT tst FROM location;"]),
              result.status == 0 else { return nil }
        return Set(result.stdout.split(separator: "\n").compactMap { Int($0) })
    }

    /// Writes the accounts of `acl --format nats` for ``circles`` into `dir` and returns the file
    /// and the passwords folder.
    static func generatedAccounts(in dir: URL, circles: URL) async throws -> (users: URL, passwords: URL) {
        let passwords = dir.appendingPathComponent("passwords")
        try FileManager.default.createDirectory(at: passwords, withIntermediateDirectories: true)
        let users = dir.appendingPathComponent("users.conf")
        let generated = try await ToolRun.run(TestPaths.builtExecutable(named: "whereabouts-sub")!.path, [
            "acl", "--format", "nats", "--circles", circles.path, "--password-dir", passwords.path, "--output", users.path,
        ])
        #expect(generated.status == 0, "\(generated.stderr)")
        return (users, passwords)
    }

    @Test("kill -9 of each node in turn during a replay, under the accounts of acl --format nats: every report the publisher committed is confirmed by a receipt and in the subscriber's history, the retained position and the circle's retained view are the newest on every node, the view over HTTP shows it")
    func nodesKilledInTurn() async throws {
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "cluster-e2e")
        defer { try? FileManager.default.removeItem(at: dir) }
        let circlesPath = dir.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circlesPath, atomically: true, encoding: .utf8)
        let (users, passwords) = try await Self.generatedAccounts(in: dir, circles: circlesPath)
        let cluster = try await NATSCluster.start(users: users, restartDelay: 2)

        // Loss is counted end to end (docs/receipts.md), not by the broker: what the publisher
        // committed against what the subscriber's history holds, and the publisher's outbox must
        // end empty (every report covered by a receipt).
        let httpPort = try FreePort.find()
        let subLogPath = dir.appendingPathComponent("sub.log")
        let history = dir.appendingPathComponent("history.sqlite")
        let sub = try ChildProcess.spawn(
            TestPaths.builtExecutable(named: "whereabouts-sub")!.path,
            ["--circles", circlesPath.path, "--broker", cluster.brokerList(startingAt: 0), "--broker-kind", "nats",
             "--username", "whereabouts-sub", "--password-file", passwords.appendingPathComponent("whereabouts-sub").path,
             "--http-port", "\(httpPort)", "--view-interval", "0.2", "--state-file", "none",
             // The track's fixes are from 2023: kept for ever, not dropped by the 30-day retention.
             "--history", history.path, "--history-days", "0"],
            logFile: subLogPath)
        defer { sub.signal(SIGKILL) }  // a failed expectation must not leave it running
        try await waitUntil("the subscriber's subscriptions", timeout: .seconds(60)) {
            ((try? String(contentsOf: subLogPath, encoding: .utf8)) ?? "").contains("Subscribed to the circles' members.")
        }
        // What the subscriber alone costs JetStream: one consumer per QoS 1 subscription of its
        // persistent session (docs/cluster.md, "What each MQTT client costs NATS").
        let subscriberOnly = try #require(await cluster.jetStream(ofNode: 0), "node 1's /jsz")
        let pubLog = dir.appendingPathComponent("pub.log")
        let outbox = dir.appendingPathComponent("outbox.sqlite")
        let pub = try ChildProcess.spawn(
            TestPaths.builtExecutable(named: "whereabouts-pub")!.path,
            ["--source", "gpx:\(Self.track.path)", "--replay-speed", "4", "--user", "alice", "--device", "phone",
             "--broker", cluster.brokerList(startingAt: 1), "--broker-kind", "nats",
             "--username", "alice", "--password-file", passwords.appendingPathComponent("alice").path,
             "--outbox", outbox.path, "--log-level", "debug", "--receipt-timeout", "10", "--drain-timeout", "150",
             "--power-supply-path", dir.appendingPathComponent("no-sysfs").path, "--policy", "interval", "--interval", "2"],
            logFile: pubLog)
        defer { pub.signal(SIGKILL) }
        @Sendable func publisherLog() -> String { (try? String(contentsOf: pubLog, encoding: .utf8)) ?? "" }
        @Sendable func committed() -> Set<Int> { loggedTimestamps(in: publisherLog(), of: "Report committed.") }

        // Each node in turn, while the replay runs (about 60 s at 4x): the publisher starts on
        // node 2, the subscriber on node 1.
        for (round, node) in [0, 1, 2].enumerated() {
            try await waitUntil("\(10 * (round + 1)) reports committed", timeout: .seconds(90)) { committed().count >= 10 * (round + 1) }
            if round == 0 {
                // The publisher, connected, subscribed and confirmed by receipts by now, added no
                // consumer: on NATS it keeps a clean session and reads its commands and receipts at
                // QoS 0 (PublisherSettings.persistentSession). With a persistent session it added two.
                try await waitUntil("the publisher on receipts", timeout: .seconds(30)) { publisherLog().contains("Subscribers confirm receipts") }
                let withPublisher = try #require(await cluster.jetStream(ofNode: 0), "node 1's /jsz")
                let before = subscriberOnly["$MQTT_msgs"]?.consumers ?? 0, after = withPublisher["$MQTT_msgs"]?.consumers ?? 0
                #expect(before >= 1, "the subscriber's QoS 1 subscriptions are consumers of $MQTT_msgs")
                #expect(after == before, "$MQTT_msgs consumers: \(before) with the subscriber alone, \(after) with the publisher")
            }
            try await cluster.killAndAwaitRestart(node: node)
        }
        // The publisher ends once receipts cover everything it committed, or at --drain-timeout.
        let status = try await withTimeout(.seconds(300), "the publisher to finish the replay and its drain") { await pub.waitForExit() }
        let sent = committed()
        #expect(sent.count >= 100, "\(sent.count) reports")
        let newest = try #require(sent.max())
        let log = publisherLog()
        #expect(status == 0, "the publisher's exit status \(status)")
        #expect(log.contains("Subscribers confirm receipts"), "the publisher never saw the subscriber's receipt announcement")
        #expect(!log.contains("Drain timeout reached"), "reports left unconfirmed: \(log.split(separator: "\n").filter { $0.contains("Drain timeout") || $0.contains("receipt") }.suffix(10).joined(separator: "\n"))")
        #expect(!log.contains("No subscriber confirms receipts"), "the publisher fell back to broker acknowledgements")
        // The view over HTTP shows the newest fix.
        try await waitUntil("the view's newest fix", timeout: .seconds(10), interval: .milliseconds(100)) {
            let answer = try? await RawHTTP.send(port: httpPort, ["GET /api/circles/family HTTP/1.1", "Host: 127.0.0.1:\(httpPort)", "Connection: close"])
            return answer?.body.contains(#""tst":\#(newest)"#) == true
        }

        // The retained position is the newest, read from every node (as the subscriber, who may
        // read alice's topics).
        let subscriberPassword = try String(contentsOf: passwords.appendingPathComponent("whereabouts-sub"), encoding: .utf8).trimmingCharacters(in: .newlines)
        for node in 0..<3 {
            let reader = cluster.client("retained-\(node)", node: node) { $0.credentials = .init(username: "whereabouts-sub", password: subscriberPassword) }
            let stream = reader.messages
            try await reader.connect()
            try await reader.subscribe(to: "owntracks/alice/phone", qos: .atLeastOnce)
            let retained = try await withTimeout(.seconds(20), "the retained position on node \(node + 1)") { try await stream.next() }
            #expect(retained.retained && Self.tst(of: retained.payload) == newest, "node \(node + 1): \(retained.payloadString ?? "")")
            await reader.disconnect()
        }
        // And so is the circle's retained view on every node (views survive a node loss: after
        // each kill the subscriber publishes its views again, docs/cluster.md), read as alice, a
        // member of the circle.
        let alicePassword = try String(contentsOf: passwords.appendingPathComponent("alice"), encoding: .utf8).trimmingCharacters(in: .newlines)
        for node in 0..<3 {
            let reader = cluster.client("view-\(node)", node: node) { $0.credentials = .init(username: "alice", password: alicePassword) }
            let stream = reader.messages
            try await reader.connect()
            try await reader.subscribe(to: "whereabouts/circles/family/view", qos: .atMostOnce)
            let view = try await withTimeout(.seconds(20), "the retained view on node \(node + 1)") { try await stream.next() }
            #expect(view.retained && view.payloadString?.contains(#""tst":\#(newest)"#) == true, "node \(node + 1): \(view.payloadString ?? "")")
            await reader.disconnect()
        }
        let subLog = (try? String(contentsOf: subLogPath, encoding: .utf8)) ?? ""
        #expect(subLog.contains("MQTT connection down, retrying"), "the subscriber lost its node and failed over")
        #expect(log.contains("MQTT connection down, retrying"), "the publisher lost its node and failed over")

        sub.signal(SIGTERM)
        _ = await sub.waitForExit()
        // Every committed report is in the history (the receipts said so; here is the check).
        let stored = try #require(await Self.historyTsts(history), "the history file could not be read")
        let missing = sent.subtracting(stored).sorted()
        #expect(missing.isEmpty, "\(missing.count) of \(sent.count) committed reports not in the history: \(missing.prefix(20)); resends: \(log.split(separator: "\n").filter { $0.contains("not confirmed by a receipt") }.count)")

        await cluster.stop()
    }

    @Test("The publisher killed with SIGKILL 10 times during a replay on the cluster: nothing committed is lost (a plain subscriber gets every report, a persistent session at least 95 %), the retained position is the newest, and the last will shows the member offline until it is back")
    func publisherKilledTenTimes() async throws {
        let cluster = try await NATSCluster.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "cluster-pub-kills")
        defer { try? FileManager.default.removeItem(at: dir) }
        let circlesPath = dir.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circlesPath, atomically: true, encoding: .utf8)
        var recorderConfiguration = cluster.clientConfiguration(clientID: "recorder-kills", node: 0)
        recorderConfiguration.cleanSession = false
        let recorder = MQTTClient(configuration: recorderConfiguration, logger: .test("recorder"))
        let received = LockedState<Set<Int>>([])
        let presence = LockedState<[String]>([])
        let messages = recorder.messages
        let recording = Task {
            for await message in messages {
                if message.topic == "owntracks/alice/phone", let tst = Self.tst(of: message.payload) { received.withLock { _ = $0.insert(tst) } }
                if message.topic == "owntracks/alice/phone/presence", let text = message.payloadString { presence.withLock { $0.append(text) } }
            }
        }
        try await recorder.connect()
        try await recorder.subscribe(to: [(filter: "owntracks/alice/phone", qos: .atLeastOnce), (filter: "owntracks/alice/phone/presence", qos: .atLeastOnce)])
        // A plain (QoS 0, clean session) subscriber on the publisher's node: NATS hands it each
        // report as it arrives, without JetStream, so it witnesses what reached the broker.
        let (witness, witnessed, witnessing, _) = try await Self.recorder("witness-kills", on: 1, of: cluster, persistent: false, qos: .atMostOnce)

        let httpPort = try FreePort.find()
        let sub = try ChildProcess.spawn(
            TestPaths.builtExecutable(named: "whereabouts-sub")!.path,
            ["--circles", circlesPath.path, "--broker", cluster.brokerList(startingAt: 2), "--broker-kind", "nats",
             "--http-port", "\(httpPort)", "--view-interval", "0.2", "--state-file", "none"],
            logFile: dir.appendingPathComponent("sub.log"))
        defer { sub.signal(SIGKILL) }  // a failed expectation must not leave it running
        let pubLog = dir.appendingPathComponent("pub.log")
        let arguments = [
            "--source", "gpx:\(Self.track.path)", "--replay-speed", "8", "--user", "alice", "--device", "phone",
            "--broker", cluster.brokerList(startingAt: 1), "--broker-kind", "nats",
            "--outbox", dir.appendingPathComponent("outbox.sqlite").path, "--log-level", "debug",
            "--power-supply-path", dir.appendingPathComponent("no-sysfs").path, "--policy", "interval", "--interval", "2",
        ]
        @Sendable func committed() -> Set<Int> {
            loggedTimestamps(in: (try? String(contentsOf: pubLog, encoding: .utf8)) ?? "", of: "Report committed.")
        }
        @Sendable func memberStatus() async -> String? {
            let answer = try? await RawHTTP.send(port: httpPort, ["GET /api/circles/family HTTP/1.1", "Host: 127.0.0.1:\(httpPort)", "Connection: close"])
            guard let body = answer?.body, let view = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                  let members = view["members"] as? [[String: Any]] else { return nil }
            return members.first?["status"] as? String
        }
        for kill in 1...10 {
            let pub = try ChildProcess.spawn(TestPaths.builtExecutable(named: "whereabouts-pub")!.path, arguments, logFile: pubLog)
            try await waitUntil("\(6 * kill) reports committed", timeout: .seconds(60)) { committed().count >= 6 * kill }
            pub.signal(SIGKILL)
            _ = await pub.waitForExit()
            if kill == 1 {
                // The presence connection's will: the subscriber shows alice offline.
                try await waitUntil("alice offline after the kill", timeout: .seconds(30), interval: .milliseconds(100)) { await memberStatus() == "offline" }
            }
        }
        // Back once more: its presence says online (after the ten wills), and it finishes the replay.
        let wills = presence.withLock { $0.count }
        let last = try ChildProcess.spawn(TestPaths.builtExecutable(named: "whereabouts-pub")!.path, arguments, logFile: pubLog)
        try await waitUntil("alice's presence online again", timeout: .seconds(30)) {
            presence.withLock { $0.dropFirst(wills).contains { $0.contains(#""state":"online""#) } }
        }
        try await withTimeout(.seconds(180), "the publisher to finish the replay") { _ = await last.waitForExit() }
        // A clean end: the publisher says offline itself, and the view follows.
        try await waitUntil("alice offline after the end", timeout: .seconds(30), interval: .milliseconds(100)) { await memberStatus() == "offline" }
        let sent = committed()
        let newest = try #require(sent.max())
        // Nothing committed is lost: every report reached the broker (the witness got it). No node
        // dies here, so 10 s is plenty.
        _ = try? await waitUntil("every committed report at the witness", timeout: .seconds(10)) {
            witnessed.withLock { sent.isSubset(of: $0) }
        }
        // 45 s: NATS sends a QoS 1 message again only after its ack_wait, 30 s (docs/cluster.md).
        _ = try? await waitUntil("every committed report at the recorder", timeout: .seconds(45)) {
            received.withLock { sent.isSubset(of: $0) }
        }
        let unwitnessed = sent.subtracting(witnessed.withLock { $0 }).sorted()
        let unrecorded = sent.subtracting(received.withLock { $0 }).sorted()
        func diagnosis(_ missing: [Int]) -> Comment {
            let log = (try? String(contentsOf: pubLog, encoding: .utf8)) ?? ""
            let lines = log.split(separator: "\n").filter { line in missing.contains { line.contains("whereabouts.tst=\($0)") } || line.contains("Killed") || line.contains("backlog") }
            return "\(missing.count) of \(sent.count) missing: \(missing.prefix(20)); \(lines.suffix(30).joined(separator: "\n"))"
        }
        #expect(unwitnessed.isEmpty, "not at the witness: \(diagnosis(unwitnessed))")
        #expect(unrecorded.count * 20 <= sent.count, "more than 5 % missing at the persistent session: \(diagnosis(unrecorded))")
        // NATS 2.9.10 lets a persistent session miss a QoS 1 message now and then even with no
        // node failing, while a plain subscriber and other sessions get it (docs/cluster.md, "What
        // NATS cannot do"; a mosquitto_sub session missed them too): a known issue, not a failure,
        // while the checks above hold.
        withKnownIssue("NATS 2.9: a persistent session can miss QoS 1 messages", isIntermittent: true) {
            #expect(unrecorded.isEmpty, "at the persistent session: \(diagnosis(unrecorded))")
        }
        #expect(presence.withLock { $0.contains { $0.contains(#""offline""#) } && $0.contains { $0.contains(#""online""#) } })

        let reader = cluster.client("retained-kills", node: 2)
        let stream = reader.messages
        try await reader.connect()
        try await reader.subscribe(to: "owntracks/alice/phone", qos: .atLeastOnce)
        let retained = try await withTimeout(.seconds(20), "the retained position") { try await stream.next() }
        #expect(retained.retained && Self.tst(of: retained.payload) == newest, "\(retained.payloadString ?? "")")
        await reader.disconnect()

        sub.signal(SIGTERM)
        _ = await sub.waitForExit()
        recording.cancel()
        witnessing.cancel()
        await recorder.disconnect()
        await witness.disconnect()
        await cluster.stop()
    }
}
