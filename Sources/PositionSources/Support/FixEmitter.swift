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

    /// The most fixes handed over and not yet taken by the consumer; the producer waits beyond it.
    static let bufferLimit = 1024
    /// Fixes handed over and not yet taken; the mutex is its single owner, `wakeUp` tells a
    /// waiting producer that it went down.
    private let waiting = Mutex(0)

    /// Passes a fix on, first waiting while ``bufferLimit`` fixes wait for the consumer (so a
    /// slow consumer holds a fast producer back instead of the buffer growing with the input);
    /// returns `false` when nobody listens any more and the producer should stop.
    @discardableResult
    func yield(_ fix: Fix) -> Bool {
        if waiting.withLock({ $0 }) >= Self.bufferLimit {
            wakeUp.lock()
            while waiting.withLock({ $0 }) >= Self.bufferLimit, !isCancelled {
                _ = wakeUp.wait(until: Date(timeIntervalSinceNow: 0.1))
            }
            wakeUp.unlock()
        }
        if isCancelled { return false }
        waiting.withLock { $0 += 1 }
        if case .terminated = continuation.yield(fix) { return false }
        return !isCancelled
    }

    /// The consumer took one fix: room for one more.
    fileprivate func taken() {
        let before = waiting.withLock { count in
            defer { count -= 1 }
            return count
        }
        if before >= Self.bufferLimit {
            wakeUp.lock()
            wakeUp.broadcast()
            wakeUp.unlock()
        }
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
    /// An iterator whose fixes come from `body`, run on a dedicated thread so that blocking reads
    /// (files, serial ports, sockets) never block Swift's cooperative thread pool.
    static func threadedIterator(
        name: String,
        _ body: @escaping @Sendable (FixEmitter) throws -> Void
    ) -> FixIterator {
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
        return FixIterator(stream, onElement: emitter.taken)
    }
}
