import Foundation
import WhereaboutsMQTT

/// The subscriber's transport over a `WhereaboutsMQTT` client: QoS 1 everywhere.
///
/// Create it *before* `client.connect()`: it opens the client's message stream at once, so the
/// messages a persistent session delivers right after connecting are not missed.
public struct MQTTCircleTransport: CircleTransport {
    /// The client it uses.
    public let client: MQTTClient
    private let messages: MQTTMessages

    /// Creates the transport and opens the client's message stream.
    public init(client: MQTTClient) {
        self.client = client
        self.messages = client.messages
    }

    /// The received messages as ``TransportMessage``s.
    public func incoming() -> AsyncMapSequence<MQTTMessages, TransportMessage> {
        messages.map { TransportMessage(topic: $0.topic, payload: Array($0.payload), retained: $0.retained) }
    }

    /// Subscribes at QoS 1.
    public func subscribe(to filters: [String]) async throws {
        try await client.subscribe(to: filters.map { (filter: $0, qos: QoS.atLeastOnce) })
    }

    /// Unsubscribes.
    public func unsubscribe(from filters: [String]) async throws {
        try await client.unsubscribe(from: filters)
    }

    /// Publishes at QoS 1.
    public func publish(to topic: String, payload: [UInt8], retain: Bool) async throws {
        try await client.publish(to: topic, payload: Data(payload), qos: .atLeastOnce, retain: retain)
    }
}
