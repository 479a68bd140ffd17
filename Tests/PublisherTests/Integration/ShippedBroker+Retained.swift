import Foundation
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Reads the retained message of `topic` from the shipped-config broker with a fresh clean-session client.
func retainedMessage(on topic: String, broker: ShippedBroker) async throws -> MQTTMessage {
    let configuration = MQTTConfiguration(host: "127.0.0.1", port: broker.port, clientID: "retained-\(UUID().uuidString.prefix(8))")
    let client = MQTTClient(configuration: configuration, logger: .test("retained"))
    let messages = client.messages
    try await client.connect()
    try await client.subscribe(to: topic, qos: .atLeastOnce)
    let message = try await messages.next(timeout: .seconds(5))
    await client.disconnect()
    return message
}
