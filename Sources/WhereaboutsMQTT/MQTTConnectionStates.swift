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
