import Foundation
import Logging
import Synchronization
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Subscribes to `owntracks/#` with a persistent session and records every message in arrival order.
final class Recorder: Sendable {
    let client: MQTTClient
    private let received = MessageLog()
    private let task: Task<Void, Never>

    /// Connects to `broker` and subscribes (QoS 1) before returning. A `keepAlive` longer than a
    /// test's broker freeze keeps the recorder's connection (and so its session's in-flight
    /// messages, which a reconnect would have the broker send again) across the freeze.
    init(broker: Broker, clientID: String = "recorder-\(UUID().uuidString.prefix(8))", keepAlive: Duration = .seconds(10)) async throws {
        var configuration = broker.clientConfiguration(clientID: clientID)
        configuration.cleanSession = false
        configuration.keepAlive = keepAlive
        client = MQTTClient(configuration: configuration, logger: .test("recorder"))
        let messages = client.messages
        let received = self.received
        task = Task { for await message in messages { received.append(message) } }
        try await client.connect()
        try await client.subscribe(to: "owntracks/#", qos: .atLeastOnce)
    }

    /// Every message so far.
    var messages: [MQTTMessage] { received.all }

    /// The location messages so far on `topic`, decoded, in arrival order.
    func locations(on topic: String) -> [(message: LocationMessage, retained: Bool)] {
        messages.filter { $0.topic == topic }.compactMap { message in
            guard let location = try? JSONDecoder().decode(LocationMessage.self, from: message.payload),
                  location.type == "location" else { return nil }
            return (location, message.retained)
        }
    }

    /// Waits until `condition` holds on the recorded messages.
    func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping @Sendable ([MQTTMessage]) -> Bool) async throws {
        try await WhereaboutsTestSupport.waitUntil(what, timeout: timeout) { [self] in condition(messages) }
    }

    func stop() async {
        await client.disconnect()
        task.cancel()
    }
}

/// Reads the retained message of `topic` with a fresh clean-session client.
func retainedMessage(on topic: String, broker: Broker) async throws -> MQTTMessage {
    let client = MQTTClient(configuration: broker.clientConfiguration(clientID: "retained-\(UUID().uuidString.prefix(8))"), logger: .test("retained"))
    let messages = client.messages
    try await client.connect()
    defer { Task { await client.disconnect() } }
    try await client.subscribe(to: topic, qos: .atLeastOnce)
    let message = try await messages.next(timeout: .seconds(5))
    await client.disconnect()
    return message
}

/// Messages in arrival order; the mutex makes appends from the reading task safe.
final class MessageLog: Sendable {
    private let messages = Mutex<[MQTTMessage]>([])
    func append(_ message: MQTTMessage) { messages.withLock { $0.append(message) } }
    var all: [MQTTMessage] { messages.withLock { $0 } }
}
