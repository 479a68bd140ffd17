import Foundation
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// `MQTTClient` as a `BrokerConnection` against a real mosquitto: the connection facts the
/// publisher's drainer relies on (up since, fresh session) and its bounded, event-woken wait.
@Suite("Broker connection")
struct BrokerConnectionTests {
    @Test("Up since is set on connect and cleared on disconnect; a new session is reported once")
    func connectionFacts() async throws {
        let broker = try await Broker.start()
        let client = broker.client("facts")
        #expect(await client.connectedSince() == nil)
        #expect(await client.takeFreshSession() == false)
        let before = Date()
        try await client.connect()
        let since = try #require(await client.connectedSince())
        #expect(since >= before.addingTimeInterval(-1) && since <= Date().addingTimeInterval(1))
        #expect(await client.takeFreshSession())  // a clean session is always a new one
        #expect(await client.takeFreshSession() == false)  // reading it cleared it
        await client.disconnect()
        #expect(await client.connectedSince() == nil)
        await broker.stop()
    }

    @Test("A resumed persistent session is not a fresh one")
    func resumedSession() async throws {
        let broker = try await Broker.start()
        let first = broker.client("persistent") { $0.cleanSession = false }
        try await first.connect()
        #expect(await first.takeFreshSession())  // the broker had no session for this id yet
        await first.disconnect()
        let second = broker.client("persistent") { $0.cleanSession = false }
        try await second.connect()
        #expect(second.state == .connected(sessionPresent: true))
        #expect(await second.takeFreshSession() == false)
        await second.disconnect()
        await broker.stop()
    }

    @Test("A waiter times out while the broker is down and wakes when it is back")
    func waitsForTheBroker() async throws {
        let broker = try await Broker.start()
        let client = broker.client("waiter")
        try await client.connect()
        #expect(await client.waitUntilConnected(timeout: .zero))  // up: answers at once
        await broker.kill()
        try await client.waitForState("reconnecting") { $0.isReconnecting }
        #expect(await client.connectedSince() == nil)
        #expect(await client.waitUntilConnected(timeout: .milliseconds(50)) == false)
        // Generous bound: the whole suite shares two cooperative threads with CPU-heavy tests.
        let waiter = Task { await client.waitUntilConnected(timeout: .seconds(60)) }
        try await broker.restart()
        let result = try await withTimeout(.seconds(60), "the waiter") { await waiter.value }
        #expect(result)
        #expect(await client.connectedSince() != nil)
        await client.disconnect()
        await broker.stop()
    }

    @Test("Cancelling the waiting task returns false at once")
    func cancellation() async throws {
        let client = MQTTClient(configuration: MQTTConfiguration(host: "127.0.0.1", port: 1), logger: .test())
        let waiter = Task { await client.waitUntilConnected(timeout: .seconds(600)) }
        waiter.cancel()
        let result = try await withTimeout(.seconds(60), "the cancelled waiter") { await waiter.value }
        #expect(result == false)
    }
}
