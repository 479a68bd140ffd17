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

    /// `configuration` as the subscriber's client uses it: a persistent session (the caller
    /// gives the stable client id), and PUBACKs coalesced while messages pour in
    /// (``MQTTConfiguration/coalescesAcknowledgementsDuringBursts``): the subscriber mostly
    /// receives, and sends one PUBACK per message. Measured in BENCHMARKS.md ("Subscriber").
    public static func subscriberConfiguration(_ configuration: MQTTConfiguration) -> MQTTConfiguration {
        var configuration = configuration
        configuration.cleanSession = false
        configuration.coalescesAcknowledgementsDuringBursts = true
        return configuration
    }

    /// Creates the transport and opens the client's message stream.
    public init(client: MQTTClient) {
        self.client = client
        self.messages = client.messages
    }

    /// The received messages as ``TransportMessage``s.
    public func incoming() -> Incoming {
        Incoming(base: messages)
    }

    /// The client's messages as ``TransportMessage``s. Iterating keeps the caller's isolation
    /// (no executor hop per message when the ingest loop runs on the store's actor).
    public struct Incoming: AsyncSequence, Sendable {
        /// The element.
        public typealias Element = TransportMessage
        let base: MQTTMessages

        /// Creates the iterator.
        public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

        /// Iterates over the messages.
        public struct Iterator: AsyncIteratorProtocol {
            var base: MQTTMessages.AsyncIterator

            /// The next message, or `nil` when the client stopped.
            public mutating func next() async -> TransportMessage? {
                await base.next().map(Self.convert)
            }

            /// The next message, staying on `actor`.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> TransportMessage? {
                await base.next(isolation: actor).map(Self.convert)
            }

            private static func convert(_ message: MQTTMessage) -> TransportMessage {
                TransportMessage(topic: message.topic, payload: message.payload, retained: message.retained)
            }
        }
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
