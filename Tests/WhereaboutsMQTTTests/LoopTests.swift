import Foundation
import Logging
import Testing
@testable import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The connection thread's own loop (`Internal/MosquittoSession+Loop.swift`): it waits in `poll`
/// on the socket and an eventfd of its own, and leaves libmosquitto's internal socket pair unread.
@Suite("The connection's loop")
struct LoopTests {
    /// Publishes `count` messages (QoS from `qos`, by number), up to `window` awaiting their acknowledgement at once.
    private static func publishConcurrently(
        _ client: MQTTClient, count: Int, window: Int = 100, topic: String, qos: (Int) -> QoS = { _ in .atLeastOnce }
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<count {
                if n >= window { try await group.next() }
                let messageQoS = qos(n)
                group.addTask { try await client.publish(to: topic, payload: "\(n)", qos: messageQoS) }
            }
            try await group.waitForAll()
        }
    }

    @Test("A publish on an idle connection wakes the thread at once, also once libmosquitto's socket pair is full")
    func idlePublishWakesTheThread() async throws {
        let broker = try await Broker.start()
        let client = broker.client("loop-wake")
        try await client.withConnection { client in
            // More packets than libmosquitto's unread socket pair takes (278 one-byte writes).
            try await Self.publishConcurrently(client, count: 600, topic: "loop/fill")
            // Each publish starts while the connection thread waits in `poll` (it resumed the
            // last one's PUBACK and went back to waiting): without a wake-up the packet would
            // stay queued until the wait timed out (the publish's own timeout, or a quarter of
            // the keepalive: `MosquittoSession.pollTimeout`), which the client counts. The round
            // trips are not the measure: they include the resumed task's wait for a pool thread,
            // 20-130 ms when the whole MQTT suite runs under the thread sanitizer.
            let before = client.writesAfterTimeout
            var latencies: [Duration] = []
            for n in 0..<21 {
                let started = ContinuousClock.now
                try await client.publish(to: "loop/idle", payload: "\(n)", qos: .atLeastOnce)
                latencies.append(ContinuousClock.now - started)
            }
            #expect(client.writesAfterTimeout == before, "publishes written only after the wait timed out; round trips: \(latencies)")
        }
        await broker.stop()
    }

    @Test(
        "Over TLS, a burst of QoS 1 messages each arrives exactly once and none waits on bytes OpenSSL already decrypted",
        arguments: [MQTTConfiguration.ProtocolVersion.v311, .v5])
    func tlsBurst(version: MQTTConfiguration.ProtocolVersion) async throws {
        let count = 3_000
        let certificates = try await TestCertificates.make()
        let broker = try await Broker.start(Broker.Options(tls: certificates))
        let tls = MQTTConfiguration.TLS(caFile: certificates.caCertificate.path)
        let subscriber = broker.client("loop-tls-sub", tls: tls) { $0.protocolVersion = version }
        let publisher = broker.client("loop-tls-pub", tls: tls) {
            $0.protocolVersion = version
            $0.maxInflightMessages = 100
        }
        try await subscriber.connect()
        try await publisher.connect()
        let messages = subscriber.messages
        try await subscriber.subscribe(to: "loop/tls/#", qos: .exactlyOnce)
        let received = Task { try await messages.collect(count, timeout: .seconds(60)) }
        // Many PUBLISH packets per TLS record: the loop asks OpenSSL whether it holds more. (QoS 2
        // bursts lose messages in mosquitto 2.0.11 whichever loop: docs/mqtt.md, "QoS 2 bursts".)
        try await Self.publishConcurrently(publisher, count: count, topic: "loop/tls/burst")
        let payloads = try await received.value.compactMap { $0.payloadString.flatMap(Int.init) }
        #expect(payloads.count == count)
        #expect(Set(payloads) == Set(0..<count), "lost or duplicated messages")
        // A last QoS 2 exchange (PUBLISH, PUBREC, PUBREL: packets without a callback) completes.
        try await publisher.publish(to: "loop/tls/last", payload: "last", qos: .exactlyOnce)
        #expect(try await messages.next(timeout: .seconds(10)).payloadString == "last")
        await publisher.disconnect()
        await subscriber.disconnect()
        await broker.stop()
    }
}
