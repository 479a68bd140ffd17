import Foundation
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// A QoS 1 publish that times out while the connection stays up is still queued in libmosquitto:
/// the client counts it until its late PUBACK comes or the connection ends, so that an outbox
/// does not publish a copy beside it.
@Suite("Publishes held after their caller gave up")
struct HeldPublishTests {
    @Test("Timed-out QoS 1 publishes on a frozen broker are held until their late PUBACK; QoS 0 is not")
    func heldUntilLateAcknowledgement() async throws {
        let broker = try await Broker.start()
        let client = broker.client("held-ack")
        try await client.connect()
        #expect(await client.publishesHeldAfterGiveUp() == 0)
        await broker.pause()
        for index in 0..<3 {
            await #expect(throws: MQTTError.timedOut(.publish, after: .milliseconds(300), mayStillBeDelivered: true)) {
                try await client.publish(to: "held/\(index)", payload: "x", qos: .atLeastOnce, timeout: .milliseconds(300))
            }
        }
        // Written to the socket buffer, nothing to wait for: never held.
        try await client.publish(to: "held/qos0", payload: "x", qos: .atMostOnce, timeout: .milliseconds(300))
        #expect(await client.publishesHeldAfterGiveUp() == 3)
        #expect(client.state.isConnected, "the frozen broker keeps the TCP connection")
        await broker.resume()
        try await waitUntil("the late PUBACKs", timeout: .seconds(10)) { await client.publishesHeldAfterGiveUp() == 0 }
        // Acknowledged operations go on as before.
        try await client.publish(to: "held/after", payload: "x", qos: .atLeastOnce, timeout: .seconds(5))
        #expect(await client.publishesHeldAfterGiveUp() == 0)
        await client.disconnect()
        await broker.stop()
    }

    @Test("A held publish is released when its connection ends")
    func releasedWhenTheConnectionEnds() async throws {
        let broker = try await Broker.start()
        let client = broker.client("held-lost")
        try await client.connect()
        await broker.pause()
        await #expect(throws: MQTTError.self) {
            try await client.publish(to: "held/lost", payload: "x", qos: .atLeastOnce, timeout: .milliseconds(300))
        }
        #expect(await client.publishesHeldAfterGiveUp() == 1)
        await broker.kill()  // the connection ends (a stopped process dies on SIGKILL too)
        try await waitUntil("the lost connection", timeout: .seconds(10)) { !client.state.isConnected }
        #expect(await client.publishesHeldAfterGiveUp() == 0)
        await client.disconnect()
        #expect(await client.publishesHeldAfterGiveUp() == 0)
    }
}
