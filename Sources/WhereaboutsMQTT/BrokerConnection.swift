#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A connection to the MQTT broker, as the publisher and the subscriber use it: publish, subscribe,
/// receive, and know whether (and since when) the connection is up.
///
/// ``MQTTClient`` is the one implementation over libmosquitto; the publisher's two-client
/// connection forwards to its main client (encrypting what it publishes). Tests use a pure
/// in-memory conformer only for logic without I/O.
public protocol BrokerConnection: Sendable {
    /// The sequence of received messages.
    associatedtype Messages: AsyncSequence & Sendable where Messages.Element == MQTTMessage

    /// Every message received on the connection's subscriptions from the moment it is read.
    ///
    /// Each read opens a new sequence that buffers until iterated: read it *before* connecting
    /// or subscribing, so that what a persistent session or a retained topic delivers at once is
    /// not missed.
    var messages: Messages { get }

    /// Publishes `payload` and returns once it is delivered as far as `qos` promises (PUBACK for
    /// QoS 1, PUBCOMP for QoS 2, written to the socket for QoS 0). Throws when that did not
    /// happen within `timeout` (`nil`: the connection's default operation timeout).
    func publish(to topic: String, payload: Data, qos: QoS, retain: Bool, timeout: Duration?) async throws

    /// Subscribes to `filters` at `qos` and returns once the broker granted them; they are
    /// restored after every reconnect.
    func subscribe(to filters: [String], qos: QoS, timeout: Duration?) async throws

    /// Unsubscribes from `filters` and returns once the broker confirmed; they are forgotten at
    /// once, so a reconnect does not restore them.
    func unsubscribe(from filters: [String], timeout: Duration?) async throws

    /// When the current connection was established, or `nil` while not connected.
    func connectedSince() async -> Date?

    /// Returns once connected, or after `timeout`, whichever comes first; returns whether
    /// connected. Woken by the connection's state change, never by polling; `false` at once when
    /// the task is cancelled.
    func waitUntilConnected(timeout: Duration) async -> Bool

    /// Whether a connection since the last call started a new broker session (the broker kept
    /// none for this client: it restarted without persistence, or it is another broker); reading
    /// it clears it. Such a broker may also have lost retained messages, so a publisher publishes
    /// its newest retained report again.
    func takeFreshSession() async -> Bool

    /// How many publishes whose caller gave up (a timeout or a cancellation while connected) the
    /// connection still holds and may still deliver: each leaves the count when its late
    /// acknowledgement arrives or the connection ends. A caller that republishes what timed out
    /// (an outbox) waits for zero first, so that it does not queue a copy beside the original.
    func publishesHeldAfterGiveUp() async -> Int
}

extension BrokerConnection {
    /// None: a connection that keeps nothing after its caller gave up.
    public func publishesHeldAfterGiveUp() async -> Int { 0 }
}
