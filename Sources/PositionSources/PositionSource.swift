import WhereaboutsCore

/// A source of position fixes: an async sequence of ``Fix`` values plus the tally of what it
/// rejected on the way.
///
/// Every source in this module (GPX, NMEA, gpsd, simulator, replay) conforms. Iterating starts the
/// source (opens the file, connects to gpsd); ending the iteration or cancelling the task stops it.
/// A source never yields an invalid fix: malformed input is skipped and counted in ``rejections``.
public protocol PositionSource: AsyncSequence, Sendable where Element == Fix, AsyncIterator == FixIterator {
    /// The live count of input this source skipped, by reason.
    var rejections: RejectionCounter { get }
}

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

/// Any ``PositionSource`` behind one concrete type, for code that picks its source at run time
/// (the publisher's `--source` flag).
public struct AnyPositionSource: PositionSource {
    private let base: any PositionSource

    /// Wraps `base`.
    public init(_ base: some PositionSource) {
        self.base = base
    }

    /// The wrapped source's rejection tally.
    public var rejections: RejectionCounter { base.rejections }

    /// Starts the wrapped source.
    public func makeAsyncIterator() -> FixIterator { base.makeAsyncIterator() }
}
