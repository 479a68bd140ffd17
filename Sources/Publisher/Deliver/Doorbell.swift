/// Wakes one waiting task: rings coalesce while nobody waits, so a burst of rings wakes it once.
struct Doorbell: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    /// Creates a doorbell nobody has rung.
    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Rings: the next (or current) ``wait()`` returns.
    func ring() { continuation.yield() }

    /// Waits for a ring (or returns at once if one is pending). Returns false when cancelled.
    @discardableResult
    func wait() async -> Bool {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() != nil
    }
}
