import Foundation

/// A message as the subscriber receives it from the broker.
public struct TransportMessage: Sendable, Hashable {
    /// The topic it was published on.
    public var topic: String
    /// The raw payload, as the transport received it (no copy).
    public var payload: Data
    /// Whether the broker delivered it as a retained message (state replayed on subscribe).
    public var retained: Bool

    /// Creates a message.
    public init(topic: String, payload: Data, retained: Bool) {
        self.topic = topic
        self.payload = payload
        self.retained = retained
    }
}

/// The MQTT operations the subscriber needs: the `WhereaboutsMQTT` client provides them
/// (`MQTTClient+CircleTransport.swift`); all subscriptions and publishes are QoS 1.
public protocol CircleTransport: Sendable {
    /// The sequence of incoming messages.
    associatedtype Incoming: AsyncSequence & Sendable where Incoming.Element == TransportMessage

    /// The incoming messages of every subscription; iterated by one task.
    func incoming() -> Incoming
    /// Subscribes at QoS 1 to `filters`.
    func subscribe(to filters: [String]) async throws
    /// Unsubscribes from `filters`.
    func unsubscribe(from filters: [String]) async throws
    /// Publishes `payload` at QoS 1 and returns once the broker acknowledged it.
    func publish(to topic: String, payload: [UInt8], retain: Bool) async throws
}
