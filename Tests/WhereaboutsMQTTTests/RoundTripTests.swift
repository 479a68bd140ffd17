import Foundation
import Logging
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

@Suite("MQTT round trips against a real mosquitto")
struct RoundTripTests {
    @Test("Publish and receive at each QoS", arguments: QoS.allCases)
    func roundTrip(qos: QoS) async throws {
        let broker = try await Broker.start()
        let subscriber = broker.client("sub-\(qos.rawValue)")
        let publisher = broker.client("pub-\(qos.rawValue)")
        try await subscriber.connect()
        try await publisher.connect()
        let messages = subscriber.messages
        try await subscriber.subscribe(to: [("test/roundtrip/#", qos)])
        try await publisher.publish(to: "test/roundtrip/a", payload: "hello \(qos)", qos: qos)
        let message = try await messages.next()
        #expect(message.topic == "test/roundtrip/a")
        #expect(message.payloadString == "hello \(qos)")
        #expect(message.qos == qos)
        #expect(message.retained == false)
        await publisher.disconnect()
        await subscriber.disconnect()
        #expect(subscriber.state == .disconnected(.requested))
        await broker.stop()
    }

    @Test("A retained message reaches a late subscriber, flagged as retained")
    func retained() async throws {
        let broker = try await Broker.start()
        let publisher = broker.client("pub")
        try await publisher.withConnection { client in
            try await client.publish(to: "owntracks/ann/phone", payload: #"{"_type":"location"}"#, qos: .atLeastOnce, retain: true)
        }
        let late = broker.client("late")
        try await late.withConnection { client in
            let messages = client.messages
            try await client.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)
            let message = try await messages.next()
            #expect(message.topic == "owntracks/ann/phone")
            #expect(message.retained)
            #expect(message.payloadString == #"{"_type":"location"}"#)
        }
        await broker.stop()
    }

    @Test("Unsubscribed filters receive nothing more")
    func unsubscribe() async throws {
        let broker = try await Broker.start()
        let client = broker.client("unsub")
        try await client.withConnection { client in
            let messages = client.messages
            try await client.subscribe(to: [("a/#", .atLeastOnce), ("b/#", .atLeastOnce)])
            try await client.unsubscribe(from: ["a/#"])
            try await client.publish(to: "a/1", payload: "dropped", qos: .atLeastOnce)
            try await client.publish(to: "b/1", payload: "kept", qos: .atLeastOnce)
            let message = try await messages.next()
            #expect(message.topic == "b/1")
        }
        await broker.stop()
    }

    @Test("MQTT 5 round trip with a persistent session")
    func mqtt5() async throws {
        let broker = try await Broker.start()
        let client = broker.client("v5") {
            $0.protocolVersion = .v5
            $0.cleanSession = false
        }
        try await client.withConnection { client in
            let messages = client.messages
            try await client.subscribe(to: "v5/#", qos: .exactlyOnce)
            try await client.publish(to: "v5/x", payload: "five", qos: .exactlyOnce)
            #expect(try await messages.next().payloadString == "five")
        }
        // The broker kept the session: reconnecting reports it.
        try await client.connect()
        #expect(client.state == .connected(sessionPresent: true))
        await client.disconnect()
        await broker.stop()
    }

    @Test("Publishing before connecting fails with notConnected, not queued")
    func notConnected() async throws {
        let client = MQTTClient(configuration: MQTTConfiguration(port: try FreePort.find()), logger: .test())
        await #expect(throws: MQTTError.notConnected(mayStillBeDelivered: false)) {
            try await client.publish(to: "x", payload: "y", qos: .atLeastOnce)
        }
    }
}
