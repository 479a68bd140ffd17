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

    /// The `tst` of every log line containing `text` (`whereabouts.tst=` metadata).
    static func tsts(in log: String, of text: String) -> Set<Int> {
        Set(log.split(separator: "\n").filter { $0.contains(text) }.compactMap { line in
            guard let range = line.range(of: "whereabouts.tst=") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        })
    }

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

    /// The connection events `log` holds (lost, retrying, connected with or without the session),
    /// one line each, for a failure message.
    static func connectionEvents(_ log: InMemoryLogHandler) -> String {
        log.entries.map { entry in
            let metadata = entry.metadata.filter { $0.key.hasPrefix("whereabouts.mqtt.") && $0.key != "whereabouts.mqtt.client_id" }
                .map { "\($0.key.dropFirst(16))=\($0.value)" }.sorted().joined(separator: " ")
            return "\(entry.message) \(metadata)"
        }.joined(separator: "\n")
    }

    static func tst(of payload: Data) -> Int? {
        (try? JSONSerialization.jsonObject(with: payload) as? [String: Any])?["tst"] as? Int
    }

    @Test("kill -9 of each node in turn during a replay: nothing reported is lost, the retained position is the newest on every node, the view over HTTP recovers within 10 s")
    func nodesKilledInTurn() async throws {
        let cluster = try await NATSCluster.start(restartDelay: 2)
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "cluster-e2e")
        defer { try? FileManager.default.removeItem(at: dir) }
        let circlesPath = dir.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circlesPath, atomically: true, encoding: .utf8)

        // Everything the publisher sends, seen by two persistent sessions on different nodes that
        // fail over too: a report missing at both was lost by the cluster, not by one session.
        let (recorder, received, recording, recorderLog) = try await Self.recorder("recorder", on: 2, of: cluster)
        let (second, receivedSecond, secondRecording, secondLog) = try await Self.recorder("recorder-2", on: 0, of: cluster)

        let httpPort = try FreePort.find()
        let sub = try ChildProcess.spawn(
            TestPaths.builtExecutable(named: "whereabouts-sub")!.path,
            ["--circles", circlesPath.path, "--broker", cluster.brokerList(startingAt: 0), "--broker-kind", "nats",
             "--http-port", "\(httpPort)", "--view-interval", "0.2", "--state-file", "none"],
            logFile: dir.appendingPathComponent("sub.log"))
        defer { sub.signal(SIGKILL) }  // a failed expectation must not leave it running
        let pubLog = dir.appendingPathComponent("pub.log")
        let pub = try ChildProcess.spawn(
            TestPaths.builtExecutable(named: "whereabouts-pub")!.path,
            ["--source", "gpx:\(Self.track.path)", "--replay-speed", "4", "--user", "alice", "--device", "phone",
             "--broker", cluster.brokerList(startingAt: 1), "--broker-kind", "nats",
             "--outbox", dir.appendingPathComponent("outbox.sqlite").path, "--log-level", "debug",
             "--power-supply-path", dir.appendingPathComponent("no-sysfs").path, "--policy", "interval", "--interval", "2"],
            logFile: pubLog)
        defer { pub.signal(SIGKILL) }
        @Sendable func committed() -> Set<Int> {
            Self.tsts(in: (try? String(contentsOf: pubLog, encoding: .utf8)) ?? "", of: "Report committed.")
        }

        // Each node in turn, while the replay runs (about 60 s at 4x): the publisher starts on
        // node 2, the subscriber on node 1, the recorder on node 3.
        for (round, node) in [0, 1, 2].enumerated() {
            try await waitUntil("\(10 * (round + 1)) reports committed", timeout: .seconds(90)) { committed().count >= 10 * (round + 1) }
            try await cluster.killAndAwaitRestart(node: node)
        }
        try await withTimeout(.seconds(180), "the publisher to finish the replay") { _ = await pub.waitForExit() }
        let sent = committed()
        #expect(sent.count >= 100, "\(sent.count) reports")
        let newest = try #require(sent.max())
        // 45 s: NATS sends again a message that was on its way to a recorder when the recorder's
        // node died only after its ack_wait, 30 s (docs/cluster.md).
        _ = try? await waitUntil("every committed report at both recorders", timeout: .seconds(45)) {
            received.withLock { sent.isSubset(of: $0) } && receivedSecond.withLock { sent.isSubset(of: $0) }
        }
        let missing = sent.subtracting(received.withLock { $0 }).sorted()
        let missingSecond = sent.subtracting(receivedSecond.withLock { $0 }).sorted()
        func diagnosis() -> Comment {
            let log = (try? String(contentsOf: pubLog, encoding: .utf8)) ?? ""
            return "of \(sent.count): missing at the recorder \(missing.prefix(20)), at the second recorder \(missingSecond.prefix(20)); publisher log tail: \(log.split(separator: "\n").filter { !$0.contains("debug") }.suffix(15).joined(separator: "\n"))\nrecorder: \(Self.connectionEvents(recorderLog))\nsecond recorder: \(Self.connectionEvents(secondLog))"
        }
        #expect(max(missing.count, missingSecond.count) * 20 <= sent.count, "more than 5 % missing at one session: \(diagnosis())")
        // NATS 2.9.10 lets a persistent session now and then miss 1-4 of the 120 reports across
        // the node kills, and now and then two sessions on different nodes miss the same report,
        // also with no node failing (docs/cluster.md, "What NATS cannot do"): a known issue, not a
        // failure, while the bound above holds.
        withKnownIssue("NATS 2.9: persistent sessions can miss QoS 1 messages", isIntermittent: true) {
            #expect(Set(missing).isDisjoint(with: missingSecond), "a report missing at both recorders: \(diagnosis())")
            #expect(missing.isEmpty && missingSecond.isEmpty, "\(diagnosis())")
        }

        // The view over HTTP shows the newest fix within 10 s of the end.
        let started = ContinuousClock.now
        try await waitUntil("the view's newest fix", timeout: .seconds(10), interval: .milliseconds(100)) {
            let answer = try? await RawHTTP.send(port: httpPort, ["GET /api/circles/family HTTP/1.1", "Host: 127.0.0.1:\(httpPort)", "Connection: close"])
            return answer?.body.contains(#""tst":\#(newest)"#) == true
        }
        #expect(ContinuousClock.now - started < .seconds(10))

        // The retained position is the newest, read from every node.
        for node in 0..<3 {
            let reader = cluster.client("retained-\(node)", node: node)
            let stream = reader.messages
            try await reader.connect()
            try await reader.subscribe(to: "owntracks/alice/phone", qos: .atLeastOnce)
            let retained = try await withTimeout(.seconds(20), "the retained position on node \(node + 1)") { try await stream.next() }
            #expect(retained.retained && Self.tst(of: retained.payload) == newest, "node \(node + 1): \(retained.payloadString ?? "")")
            await reader.disconnect()
        }
        let subLog = (try? String(contentsOf: dir.appendingPathComponent("sub.log"), encoding: .utf8)) ?? ""
        #expect(subLog.contains("MQTT connection down, retrying"), "the subscriber lost its node and failed over")
        let publisherLog = (try? String(contentsOf: pubLog, encoding: .utf8)) ?? ""
        #expect(publisherLog.contains("MQTT connection down, retrying"), "the publisher lost its node and failed over")

        sub.signal(SIGTERM)
        _ = await sub.waitForExit()
        recording.cancel()
        secondRecording.cancel()
        await recorder.disconnect()
        await second.disconnect()
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
            Self.tsts(in: (try? String(contentsOf: pubLog, encoding: .utf8)) ?? "", of: "Report committed.")
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
