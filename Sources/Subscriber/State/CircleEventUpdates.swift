/// An endless sequence of circle events (status changes, arrivals and departures, membership),
/// as the subscriber publishes them on each circle's events topic.
///
/// Obtained from ``CircleViewStore/eventUpdates()``; the dashboard pushes these over its
/// WebSocket beside the views. Every event is buffered until read; stopping iteration
/// unregisters it.
public struct CircleEventUpdates: AsyncSequence, Sendable {
    /// The element: an event as published.
    public typealias Element = CircleEvent

    let stream: AsyncStream<CircleEvent>

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates over the events.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<CircleEvent>.Iterator

        /// The next published event, or `nil` once the store is gone.
        public mutating func next() async -> CircleEvent? {
            await base.next()
        }
    }
}
