/// An endless sequence of circle views, one each time the subscriber publishes a circle's view.
///
/// Obtained from ``CircleViewStore/updates()``; the dashboard pushes these over its WebSocket.
/// Every view is buffered until read, so a consumer must keep reading (the dashboard has one,
/// shared by all its clients); stopping iteration unregisters it.
public struct CircleViewUpdates: AsyncSequence, Sendable {
    /// The element: a freshly published view.
    public typealias Element = CircleView

    let stream: AsyncStream<CircleView>

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates over the views.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<CircleView>.Iterator

        /// The next published view, or `nil` once the store is gone.
        public mutating func next() async -> CircleView? {
            await base.next()
        }
    }
}
