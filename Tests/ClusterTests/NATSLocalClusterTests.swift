import Foundation
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The shipped three-node NATS JetStream cluster (`broker/nats/`) against the guarantees Whereabouts
/// depends on, with Whereabouts' own MQTT client: QoS 1 across nodes, the newest retained position
/// seen from every node (also through a wildcard), and a persistent session resumed on another node.
@Suite("NATS local cluster (broker/nats)", .serialized)
struct NATSLocalClusterTests {
    @Test("QoS 1 published on node 1 reaches a subscriber on node 2; node 3 sees the newest retained position through a wildcard; SIGTERM stops every node")
    func acrossNodes() async throws {
        let cluster = try await NATSCluster.start()
        let pids = try (0..<3).map { try cluster.pid(ofNode: $0) }

        let watcher = cluster.client("watcher", node: 1)
        try await watcher.connect()
        let live = watcher.messages
        try await watcher.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)

        let phone = cluster.client("alice-phone", node: 0)
        try await phone.connect()
        for tst in [1_700_000_000, 1_700_000_060] {
            let location = #"{"_type":"location","tid":"al","lat":52.66,"lon":-8.63,"acc":5,"tst":\#(tst)}"#
            try await phone.publish(to: "owntracks/alice/phone", payload: Data(location.utf8), qos: .atLeastOnce, retain: true)
        }
        let first = try await withTimeout(.seconds(20), "the first location on node 2") { try await live.next() }
        let second = try await withTimeout(.seconds(20), "the second location on node 2") { try await live.next() }
        #expect(first.topic == "owntracks/alice/phone" && first.payloadString?.contains("1700000000") == true)
        #expect(second.payloadString?.contains("1700000060") == true, "in order, none lost")
        await phone.disconnect()
        await watcher.disconnect()

        let late = cluster.client("late", node: 2)
        try await late.connect()
        let retained = late.messages
        try await late.subscribe(to: "owntracks/#", qos: .atLeastOnce)
        let newest = try await withTimeout(.seconds(20), "the retained location on node 3") { try await retained.next() }
        #expect(newest.retained)
        #expect(newest.topic == "owntracks/alice/phone")
        #expect(newest.payloadString?.contains("1700000060") == true, "the newest, not the first: \(newest.payloadString ?? "")")
        await late.disconnect()

        let status = await cluster.stop()
        #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 143, "run-local-cluster wait status \(status)")
        for pid in pids { #expect(kill(pid, 0) != 0, "node \(pid) stopped with the script") }
    }

    @Test("A persistent session made on node 1 gets the QoS 1 message published while it was away, resumed on node 3")
    func sessionOnAnotherNode() async throws {
        let cluster = try await NATSCluster.start()
        let subscriber = cluster.client("whereabouts-sub", node: 0) { $0.cleanSession = false }
        try await subscriber.connect()
        try await subscriber.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)
        await subscriber.disconnect()

        let phone = cluster.client("bob-phone", node: 1)
        try await phone.connect()
        let location = #"{"_type":"location","tid":"bo","lat":52.67,"lon":-8.62,"acc":5,"tst":1700000120}"#
        try await phone.publish(to: "owntracks/bob/phone", payload: Data(location.utf8), qos: .atLeastOnce)
        await phone.disconnect()

        let resumed = cluster.client("whereabouts-sub", node: 2) { $0.cleanSession = false }
        let messages = resumed.messages
        try await resumed.connect()
        let queued = try await withTimeout(.seconds(30), "the queued message on node 3") { try await messages.next() }
        #expect(queued.topic == "owntracks/bob/phone")
        #expect(queued.payloadString?.contains("1700000120") == true)
        await resumed.disconnect()
        await cluster.stop()
    }

    @Test("A node killed while it leads an idle consumer is current again within 40 s, and within 20 s on NATS 2.15 or later: NATS 2.9.10 leaves that consumer's replica on it behind, and the script asks the consumer's new leader to step down")
    func idleConsumerLeaderKilled() async throws {
        let cluster = try await NATSCluster.start()
        // The subscriber's persistent session: its owntracks/+/+/+ consumer stays idle (transitions are rare).
        let subscriber = cluster.client("whereabouts-sub", node: 0) { $0.cleanSession = false }
        try await subscriber.connect()
        try await subscriber.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)
        try await subscriber.subscribe(to: "owntracks/+/+/+", qos: .atLeastOnce)
        @Sendable func idleLeader() async -> String? {
            await cluster.consumers(ofNode: 0)?.first { $0.filterSubject == "$MQTT.msgs.owntracks.*.*.*" }?.leader
        }
        try await waitUntil("the idle consumer's leader", timeout: .seconds(30), interval: .milliseconds(200)) { await idleLeader() != nil }
        let leader = await idleLeader()
        let node = try #require(leader.flatMap { Int($0.dropFirst("node-".count)) }.map { $0 - 1 }, "leader \(leader ?? "none")")

        let current = try await cluster.killAndAwaitRestart(node: node, timeout: .seconds(60))
        // The figure docs/cluster.md tabulates, for runs in a loop (a passing test prints nothing else).
        let version = try #require(await cluster.serverVersion(), "the NATS version from /varz")
        print("idleConsumerLeaderKilled: NATS \(version.major).\(version.minor), node \(node + 1) current \(current) after SIGKILL")
        // Without the script's repair the replica stays behind for minutes (docs/cluster.md).
        #expect(current < .seconds(40), "node \(node + 1) current after \(current); the script's log:\n\(cluster.scriptLog)")
        // The goal, 20 s, the 0.5 s restart delay included: met in 53 of 54 runs (4.2-18.0 s; 21.9 s
        // once with both cores kept busy and other builds, load 13; docs/cluster.md), not every
        // time: it waits for two of NATS' own elections (the killed node's consumer's, then the
        // step-down's), each up to 9 s and longer under load. The script's log says when each
        // leader reported the replica behind and when it asked.
        // NATS 2.15 leaves no replica behind (2.15.1: 1.4-7.3 s in 15 of 15 runs, 10 with both
        // cores kept busy; docs/cluster.md, "Which NATS"): there the goal is the assertion. The
        // versions between were not measured.
        if version.major > 2 || (version.major == 2 && version.minor >= 15) {
            #expect(current < .seconds(20), "NATS \(version.major).\(version.minor): node \(node + 1) current after \(current); the script's log:\n\(cluster.scriptLog)")
        } else {
            withKnownIssue("a killed node current after more than 20 s (NATS' leader elections slow on a loaded machine)", isIntermittent: true) {
                #expect(current < .seconds(20), "node \(node + 1) current after \(current); the script's log:\n\(cluster.scriptLog)")
            }
        }
        await subscriber.disconnect()
        await cluster.stop()
    }

    @Test("A QoS 1 message in flight to a subscriber whose node is killed is sent again, marked DUP, once ack_wait (30 s) has passed after the session resumes on another node")
    func inFlightMessageAfterNodeDies() async throws {
        let cluster = try await NATSCluster.start()
        let (held, _) = try await OffPool.run { try UnacknowledgingSubscriber.connect(port: cluster.mqttPorts[2], clientID: "held") }
        try await OffPool.run { try held.subscribe("owntracks/+/+") }

        let phone = cluster.client("carol-phone", node: 0)
        try await phone.connect()
        let location = #"{"_type":"location","tid":"ca","lat":52.68,"lon":-8.61,"acc":5,"tst":1700000180}"#
        try await phone.publish(to: "owntracks/carol/phone", payload: Data(location.utf8), qos: .atLeastOnce)
        await phone.disconnect()
        let first = try #require(try await OffPool.run { try held.nextDelivery(timeout: 20) }, "the message on node 3")
        #expect(!first.duplicate && first.payload == location)

        // Node 3 dies before the PUBACK; the subscriber resumes its session on node 1.
        try #require(kill(try cluster.pid(ofNode: 2), SIGKILL) == 0)
        let killed = ContinuousClock.now
        held.abandon()
        // While the session's stream elects a new leader, NATS may close a CONNECT before its
        // CONNACK; like any client, this one tries again (every 0.5 s, for at most 15 s).
        let (resumed, present) = try await OffPool.run {
            var attempts = 0
            while true {
                do {
                    return try UnacknowledgingSubscriber.connect(port: cluster.mqttPorts[0], clientID: "held")
                } catch {
                    attempts += 1
                    if attempts >= 30 { throw error }
                    Thread.sleep(forTimeInterval: 0.5)
                }
            }
        }
        #expect(present, "the session survived its node")
        // NATS 2.9 sends it again when the consumer's ack_wait (30 s) has passed, not on the resume.
        let again = try #require(try await OffPool.run { try resumed.nextDelivery(timeout: 45) }, "the message sent again within 45 s of the kill")
        let waited = ContinuousClock.now - killed
        #expect(again.duplicate && again.payload == location && again.topic == "owntracks/carol/phone")
        #expect(waited > .seconds(20) && waited < .seconds(45), "sent again after \(waited)")
        try await OffPool.run { try resumed.acknowledge(again) }
        resumed.abandon()
        await cluster.stop()
    }
}
