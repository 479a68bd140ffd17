import Foundation

/// The MQTT operations the subscriber needs: ``MQTTCircleTransport`` provides them over the
/// `WhereaboutsMQTT` client (`MQTTCircleTransport.swift`); all subscriptions and publishes are QoS 1.
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
