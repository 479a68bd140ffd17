import Foundation
import Logging
import Testing
@testable import WhereaboutsMQTT
import WhereaboutsTestSupport

@Suite("Reconnecting after broker outages")
struct ReconnectTests {
    @Test("Broker killed and restarted: clients reconnect, resubscribe, and a QoS 1 message published during the outage arrives")
    func outage() async throws {
        let broker = try await Broker.start()
        let subscriber = broker.client("outage-sub")
        let publisher = broker.client("outage-pub")
        try await subscriber.connect()
        try await publisher.connect()
        let messages = subscriber.messages
        try await subscriber.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)

        await broker.kill()
        let down = try await publisher.waitForState("publisher reconnecting") { $0.isReconnecting }
        if case .reconnecting(_, let lastError) = down {
            #expect(lastError != nil)
        }
        // Published while the broker is down: libmosquitto queues it in memory and says so. (In
        // the instant a reconnect attempt holds the handle, nothing is queued and the error says
        // that instead: retry then, as the publisher's outbox does.) Retained, so the subscriber
        // gets it whether it resubscribes before or after the publisher resends it.
        var outcome: MQTTError?
        for _ in 0..<50 {
            do {
                try await publisher.publish(to: "owntracks/ann/phone", payload: "during outage", qos: .atLeastOnce, retain: true)
                outcome = nil
            } catch let error as MQTTError {
                outcome = error
                if error == .notConnected(mayStillBeDelivered: false) { continue }
            }
            break
        }
        #expect(outcome == .notConnected(mayStillBeDelivered: true))
        #expect(outcome?.description.contains("may still be delivered") == true)

        try await broker.restart()
        try await subscriber.waitForState("subscriber connected again") { $0.isConnected }
        try await publisher.waitForState("publisher connected again") { $0.isConnected }
        let message = try await messages.next(timeout: .seconds(15))
        #expect(message.topic == "owntracks/ann/phone")
        #expect(message.payloadString == "during outage")

        // The subscription is live again (not only the retained copy): a new message arrives.
        try await publisher.publish(to: "owntracks/ann/phone", payload: "after", qos: .atLeastOnce)
        #expect(try await messages.next().payloadString == "after")
        await publisher.disconnect()
        await subscriber.disconnect()
        await broker.stop()
    }

    @Test("State updates go connected -> reconnecting -> connected -> disconnected(requested)")
    func stateUpdates() async throws {
        let broker = try await Broker.start()
        let client = broker.client("states")
        try await client.connect()
        let states = client.stateUpdates
        await broker.kill()
        try await client.waitForState("reconnecting") { $0.isReconnecting }
        try await broker.restart()
        try await client.waitForState("connected") { $0.isConnected }
        await client.disconnect()
        #expect(client.state == .disconnected(.requested))
        let seen = try await withTimeout(.seconds(5), "the state history") {
            var seen: [MQTTConnectionState] = []
            for await state in states {
                seen.append(state)
                if state == .disconnected(.requested) { break }
            }
            return seen
        }
        let kinds = seen.map { state -> String in
            switch state {
            case .connecting: "connecting"
            case .connected: "connected"
            case .reconnecting: "reconnecting"
            case .disconnected: "disconnected"
            }
        }
        // Consecutive repeats (attempt 1, 2, ...) collapse to one.
        let collapsed = kinds.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(collapsed == ["connected", "reconnecting", "connected", "disconnected"])
        await broker.stop()
    }

    @Test("start() keeps trying while the broker is down and connects once it is up")
    func startBeforeBroker() async throws {
        let broker = try await Broker.start()
        await broker.stop()
        let client = broker.client("early")
        try client.start()
        let state = try await client.waitForState("a failed attempt") {
            if case .reconnecting(let attempt, _) = $0 { attempt >= 1 } else { false }
        }
        if case .reconnecting(_, let error) = state { #expect(error != nil) }
        await #expect(throws: MQTTError.notConnected(mayStillBeDelivered: false)) {
            try await client.publish(to: "x", payload: "y", qos: .atMostOnce)
        }
        try await broker.restart()
        try await client.connect()  // waits for the background connection
        #expect(client.state.isConnected)
        await client.disconnect()
        await broker.stop()
    }

    @Test("A publish waiting for its PUBACK when the connection drops completes after the reconnect")
    func inflightSurvivesReconnect() async throws {
        let broker = try await Broker.start()
        let client = broker.client("inflight")
        try await client.connect()
        await broker.pause()
        let publish = Task {
            try await client.publish(to: "queued/1", payload: "kept", qos: .atLeastOnce, retain: true, timeout: .seconds(20))
        }
        // Kill only once the publish is handed to libmosquitto and waits for its PUBACK.
        try await waitUntil("the publish to await its acknowledgement") { client.pendingAcknowledgements == 1 }
        await broker.kill()
        try await client.waitForState("reconnecting") { $0.isReconnecting }
        try await broker.restart()
        try await withTimeout(.seconds(20), "the publish to complete") { try await publish.value }
        // It really reached the (fresh) broker: a new subscriber gets it as the retained value.
        let reader = broker.client("reader")
        try await reader.withConnection { reader in
            let messages = reader.messages
            try await reader.subscribe(to: "queued/#", qos: .atLeastOnce)
            #expect(try await messages.next().payloadString == "kept")
        }
        await client.disconnect()
        await broker.stop()
    }

    @Test("Subscriptions made while disconnected are sent once the connection is up")
    func subscribeBeforeConnection() async throws {
        let broker = try await Broker.start()
        await broker.stop()
        let client = broker.client("subscribe-early")
        try client.start()
        let messages = client.messages
        try await client.subscribe(to: "early/#", qos: .atLeastOnce)  // remembered, not sent
        try await broker.restart()
        try await client.waitForState("connected") { $0.isConnected }
        let sender = broker.client("sender")
        try await sender.withConnection { sender in
            try await sender.publish(to: "early/1", payload: "reached", qos: .atLeastOnce, retain: true)
        }
        #expect(try await messages.next().payloadString == "reached")
        await client.disconnect()
        await broker.stop()
    }

    @Test("With queuesWhileDisconnected off, a publish during an outage is not queued and never sent")
    func noQueueWhileDisconnected() async throws {
        let broker = try await Broker.start()
        let publisher = broker.client("outbox") { $0.queuesWhileDisconnected = false }
        try await publisher.connect()
        await broker.kill()
        try await publisher.waitForState("reconnecting") { $0.isReconnecting }
        await #expect(throws: MQTTError.notConnected(mayStillBeDelivered: false)) {
            try await publisher.publish(to: "offline/x", payload: "never", qos: .atLeastOnce, retain: true)
        }
        try await broker.restart()
        try await publisher.waitForState("connected") { $0.isConnected }
        try await publisher.publish(to: "marker/x", payload: "after", qos: .atLeastOnce, retain: true)

        // Retained messages come right after each SUBACK, and the second SUBSCRIBE is sent only
        // after the first SUBACK: had "offline/x" been delivered, it would come first.
        let reader = broker.client("reader")
        try await reader.withConnection { reader in
            let messages = reader.messages
            try await reader.subscribe(to: "offline/#", qos: .atLeastOnce)
            try await reader.subscribe(to: "marker/#", qos: .atLeastOnce)
            #expect(try await messages.next().topic == "marker/x")
        }
        await publisher.disconnect()
        await broker.stop()
    }
}

@Suite("Failing over between brokers")
struct FailoverTests {
    @Test("A client whose first broker is down connects to the next; when that one dies it goes on to the next in turn")
    func failsOverInTurn() async throws {
        let dead = try FreePort.find()  // nothing listens here
        let first = try await Broker.start()
        let second = try await Broker.start()
        var configuration = first.clientConfiguration(clientID: "failover")
        configuration.port = dead
        configuration.failover = [.init(host: "127.0.0.1", port: first.port), .init(host: "127.0.0.1", port: second.port)]
        configuration.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200))
        #expect(configuration.endpoints.map(\.port) == [dead, first.port, second.port])
        let client = MQTTClient(configuration: configuration, logger: .test("failover"))
        try await client.connect()  // the first attempt fails, the background attempts go on
        let probeOnFirst = first.client("probe-first")
        try await probeOnFirst.connect()
        let seenOnFirst = probeOnFirst.messages
        try await probeOnFirst.subscribe(to: "failover/#", qos: .atLeastOnce)
        try await client.publish(to: "failover/one", payload: "on the first", qos: .atLeastOnce)
        #expect(try await seenOnFirst.next(timeout: .seconds(10)).payloadString == "on the first")
        await probeOnFirst.disconnect()

        // The broker it is on dies: the next attempt goes to the second, not back to the dead port.
        await first.kill()
        try await client.waitForState("connected again") { $0.isConnected }
        let probeOnSecond = second.client("probe-second")
        try await probeOnSecond.connect()
        let seenOnSecond = probeOnSecond.messages
        try await probeOnSecond.subscribe(to: "failover/#", qos: .atLeastOnce)
        try await client.publish(to: "failover/two", payload: "on the second", qos: .atLeastOnce)
        #expect(try await seenOnSecond.next(timeout: .seconds(10)).payloadString == "on the second")
        await probeOnSecond.disconnect()
        await client.disconnect()
        await second.stop()
        await first.stop()
    }

    @Test("Every endpoint is validated")
    func validatesEveryEndpoint() {
        var configuration = MQTTConfiguration(port: 1883)
        configuration.failover = [.init(host: "", port: 1883)]
        #expect(throws: MQTTError.invalidArgument("the broker host is empty")) { try configuration.validate() }
        configuration.failover = [.init(host: "b", port: 70_000)]
        #expect(throws: MQTTError.invalidArgument("port 70000 is outside 1...65535")) { try configuration.validate() }
    }
}
