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
