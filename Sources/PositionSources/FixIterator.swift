import WhereaboutsCore

/// The iterator of every ``PositionSource``: yields fixes in the order the source produced them,
/// `nil` when the source is exhausted, and throws when the source fails for good (a file that
/// cannot be read, say).
public struct FixIterator: AsyncIteratorProtocol {
    private let nextFix: () async throws -> Fix?

    /// An iterator over a stream that a producer thread fills; `onElement` runs for every fix
    /// taken (to let the producer go on).
    init(_ stream: AsyncThrowingStream<Fix, any Error>, onElement: @escaping @Sendable () -> Void = {}) {
        let box = StreamIteratorBox(stream.makeAsyncIterator())
        nextFix = {
            let fix = try await box.next()
            if fix != nil { onElement() }
            return fix
        }
    }

    /// An iterator that calls `next` for each fix (for sources computed in the consumer's task).
    init(next: @escaping () async throws -> Fix?) {
        nextFix = next
    }

    /// The next fix, or `nil` at the end of the source.
    public mutating func next() async throws -> Fix? {
        try await nextFix()
    }
}

extension FixIterator {
    /// Holds a stream iterator so a closure can advance it.
    private final class StreamIteratorBox {
        private var iterator: AsyncThrowingStream<Fix, any Error>.Iterator

        init(_ iterator: AsyncThrowingStream<Fix, any Error>.Iterator) {
            self.iterator = iterator
        }

        func next() async throws -> Fix? {
            try await iterator.next()
        }
    }
}
