/// The messages an `MQTTClient` receives, as an `AsyncSequence`. Ends after `disconnect()` or
/// when the client is released.
public struct MQTTMessages: AsyncSequence, Sendable {
    /// The element type: one received message.
    public typealias Element = MQTTMessage
    let stream: AsyncStream<MQTTMessage>

    /// Iterates the messages in the order they arrived.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<MQTTMessage>.AsyncIterator
        /// The next message, or `nil` once the sequence has ended.
        public mutating func next() async -> MQTTMessage? { await base.next() }
        /// The next message, or `nil` once the sequence has ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> MQTTMessage? {
            await base.next(isolation: actor)
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

/// The connection states of an `MQTTClient`: the current one first, then every change.
public struct MQTTConnectionStates: AsyncSequence, Sendable {
    /// The element type: one connection state.
    public typealias Element = MQTTConnectionState
    let stream: AsyncStream<MQTTConnectionState>

    /// Iterates the states in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<MQTTConnectionState>.AsyncIterator
        /// The next state, or `nil` once the client is gone.
        public mutating func next() async -> MQTTConnectionState? { await base.next() }
        /// The next state, or `nil` once the client is gone.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> MQTTConnectionState? {
            await base.next(isolation: actor)
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}
