#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A message received from the broker on one of the client's subscriptions.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic the message was published to (never a wildcard filter).
    public var topic: String
    /// The payload bytes exactly as published.
    public var payload: Data
    /// The QoS the message was delivered with (the lower of the publish and subscription QoS).
    public var qos: QoS
    /// Whether the broker sent it from its retained store (a last-known value) rather than live.
    public var retained: Bool

    /// Creates a message value.
    public init(topic: String, payload: Data, qos: QoS = .atMostOnce, retained: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
    }

    /// The payload decoded as UTF-8, or `nil` when it is not valid UTF-8.
    package var payloadString: String? { String(bytes: payload, encoding: .utf8) }
}
