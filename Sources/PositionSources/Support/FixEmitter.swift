import Foundation
import Synchronization
import WhereaboutsCore

/// Hands fixes from a producer thread to an `AsyncThrowingStream`, and tells the producer when the
/// consumer has gone away so it can stop.
final class FixEmitter: Sendable {
    private let continuation: AsyncThrowingStream<Fix, any Error>.Continuation
    // The consumer's state; the mutex is its single owner. `stopped` also wakes `wait(seconds:)`.
    private let stopped = Mutex(false)
    private let wakeUp = NSCondition()

    init(_ continuation: AsyncThrowingStream<Fix, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// Whether the consumer stopped iterating (or the task was cancelled).
    var isCancelled: Bool { stopped.withLock { $0 } }

    /// Passes a fix on; returns `false` when nobody listens any more and the producer should stop.
    @discardableResult
    func yield(_ fix: Fix) -> Bool {
        if case .terminated = continuation.yield(fix) { return false }
        return !isCancelled
    }

    /// Ends the stream, with an error if the producer failed.
    func finish(throwing error: (any Error)? = nil) {
        continuation.finish(throwing: error)
    }

    /// Blocks the producer thread for up to `seconds`, returning early (with `true`) on cancellation.
    func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        wakeUp.lock()
        defer { wakeUp.unlock() }
        while !isCancelled {
            if !wakeUp.wait(until: deadline) { break }
        }
        return isCancelled
    }

    fileprivate func cancel() {
        stopped.withLock { $0 = true }
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
    }
}

extension FixEmitter {
    /// A stream whose fixes come from `body`, run on a dedicated thread so that blocking reads
    /// (files, serial ports, sockets) never block Swift's cooperative thread pool.
    static func threadedStream(
        name: String,
        _ body: @escaping @Sendable (FixEmitter) throws -> Void
    ) -> AsyncThrowingStream<Fix, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Fix, any Error>.makeStream()
        let emitter = FixEmitter(continuation)
        continuation.onTermination = { _ in emitter.cancel() }
        let thread = Thread {
            do {
                try body(emitter)
                emitter.finish()
            } catch {
                emitter.finish(throwing: error)
            }
        }
        thread.name = name
        thread.start()
        return stream
    }
}
