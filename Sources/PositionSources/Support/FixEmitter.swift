#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore
import SystemSupport

/// Hands fixes from a producer thread to an `AsyncThrowingStream`, and tells the producer when the
/// consumer has gone away so it can stop.
///
/// The producer thread blocks (a full buffer, a pause between simulated fixes) on the shared state,
/// so it is a `LockedState`: a change through `withLock` wakes the blocked thread.
final class FixEmitter: Sendable {
    private struct State {
        /// The consumer stopped iterating (or its task was cancelled).
        var stopped = false
        /// Fixes handed over and not yet taken by the consumer.
        var waiting = 0
    }

    private let continuation: AsyncThrowingStream<Fix, any Error>.Continuation
    private let state = LockedState(State())

    init(_ continuation: AsyncThrowingStream<Fix, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Whether the consumer stopped iterating (or the task was cancelled).
    var isCancelled: Bool { state.withLock { $0.stopped } }

    /// The most fixes handed over and not yet taken by the consumer; the producer waits beyond it.
    static let bufferLimit = 1024

    /// Passes a fix on, first waiting while ``bufferLimit`` fixes wait for the consumer (so a
    /// slow consumer holds a fast producer back instead of the buffer growing with the input);
    /// returns `false` when nobody listens any more and the producer should stop.
    @discardableResult
    func yield(_ fix: Fix) -> Bool {
        state.wait(until: { $0.waiting < Self.bufferLimit || $0.stopped })
        let listening = state.withLock { state in
            if !state.stopped { state.waiting += 1 }
            return !state.stopped
        }
        guard listening else { return false }
        if case .terminated = continuation.yield(fix) { return false }
        return !isCancelled
    }

    /// The consumer took one fix: room for one more (wakes a producer waiting for room).
    fileprivate func taken() {
        state.withLock { $0.waiting -= 1 }
    }

    /// Ends the stream, with an error if the producer failed.
    func finish(throwing error: (any Error)? = nil) {
        continuation.finish(throwing: error)
    }

    /// Blocks the producer thread for up to `seconds`, returning early (with `true`) on cancellation.
    func wait(seconds: Double) -> Bool {
        state.wait(until: \.stopped, deadline: .now + .seconds(seconds))
    }

    fileprivate func cancel() {
        state.withLock { $0.stopped = true }
    }
}

extension FixEmitter {
    /// An iterator whose fixes come from `body`, run on a dedicated thread so that blocking reads
    /// (files, serial ports, sockets) never block Swift's cooperative thread pool.
    static func threadedIterator(
        name: String,
        _ body: @escaping @Sendable (FixEmitter) throws -> Void
    ) -> FixIterator {
        let (stream, continuation) = AsyncThrowingStream<Fix, any Error>.makeStream()
        let emitter = FixEmitter(continuation)
        continuation.onTermination = { _ in emitter.cancel() }
        OwnThread.start(name: name) {
            do {
                try body(emitter)
                emitter.finish()
            } catch {
                emitter.finish(throwing: error)
            }
        }
        return FixIterator(stream, onElement: emitter.taken)
    }
}
