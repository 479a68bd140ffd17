/// An endless sequence of what the subscriber publishes, one element each time: circle views
/// (``CircleViewUpdates``, from ``CircleViewStore/updates()``) or circle events (status changes,
/// arrivals and departures, membership: ``CircleEventUpdates``, from
/// ``CircleViewStore/eventUpdates()``).
///
/// The dashboard pushes both over its WebSocket. Every element is buffered until read, so a
/// consumer must keep reading (the dashboard has one, shared by all its clients); stopping
/// iteration unregisters the sequence.
package struct CircleStoreUpdates<Element: Sendable>: AsyncSequence, Sendable {
    let stream: AsyncStream<Element>

    /// Creates the iterator.
    package func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator())
    }

    /// Iterates over the published elements.
    package struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator

        /// The next published element, or `nil` once the store is gone.
        package mutating func next() async -> Element? {
            await base.next()
        }
    }
}

/// Circle views as the subscriber publishes them (``CircleViewStore/updates()``).
package typealias CircleViewUpdates = CircleStoreUpdates<CircleView>

/// Circle events as the subscriber publishes them on each circle's events topic
/// (``CircleViewStore/eventUpdates()``).
package typealias CircleEventUpdates = CircleStoreUpdates<CircleEvent>
