import Foundation

/// What the outbox drainer needs from the MQTT connection.
///
/// ``MQTTPublishConnection`` implements it over `WhereaboutsMQTT`'s client.
public protocol PublishConnection: Sendable {
    /// Publishes `payload` and returns when it is delivered as far as `qos` promises (PUBACK for 1,
    /// PUBCOMP for 2; handed to the socket for 0). Throws when that did not happen in `timeout`.
    func publish(to topic: String, payload: Data, qos: Int, retain: Bool, timeout: Duration) async throws

    /// When the current connection was established, or `nil` while not connected.
    func connectedSince() async -> Date?

    /// Returns once connected, or after `timeout`, whichever comes first. Returns whether connected.
    func waitUntilConnected(timeout: Duration) async -> Bool

    /// Whether the current connection started a new broker session (the broker kept none for this
    /// client: it restarted without persistence, or it is another broker) that the drainer has not
    /// yet answered; reading it clears it. Such a broker may also have lost the retained location,
    /// so the drainer publishes the newest acknowledged report again.
    func takeFreshSession() async -> Bool
}

extension PublishConnection {
    /// No session tracking: never a fresh session.
    public func takeFreshSession() async -> Bool { false }
}
