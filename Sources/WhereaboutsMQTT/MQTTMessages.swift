/// The messages an `MQTTClient` receives, as an `AsyncSequence`. Ends after `disconnect()` or
/// when the client is released.
///
/// Every message that arrives after the sequence was made is buffered until iterated and
/// returned once, in arrival order. Iterators of one sequence share its buffer: one made after
/// another was left (`break`) continues where it stopped. Separate sequences (`client.messages`
/// again) each get every message. A `next()` waiting when its task is cancelled returns `nil`.
public struct MQTTMessages: AsyncSequence, Sendable {
    /// The element type: one received message.
    public typealias Element = MQTTMessage
    let registration: MessageChannelRegistration

    /// Iterates the messages in the order they arrived. Takes every buffered message at once
    /// and returns them one by one without locking or suspending.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let batch: MessageBatch
        /// The next message, or `nil` once the sequence has ended (or the task was cancelled).
        public mutating func next() async -> MQTTMessage? { await batch.next(isolation: nil) }
        /// The next message, or `nil` once the sequence has ended (or the task was cancelled).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> MQTTMessage? {
            await batch.next(isolation: actor)
        }
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(batch: MessageBatch(registration: registration)) }
}
