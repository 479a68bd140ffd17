import Dispatch
import Synchronization

/// Wakes one waiting task: rings coalesce while nobody waits, so a burst of rings wakes it once.
///
/// A wait with a time limit arms a dispatch timer that is cancelled, and its memory released, as
/// soon as a ring ends the wait. (Racing `Task.sleep` against the ring left every early-ended
/// sleep's timer, task and continuation allocated until its deadline: during a full-speed replay
/// the drainer waits thousands of times a second, and about 1 MB of the publisher's peak heap was
/// such sleeps; docs/publisher.md, "Resident memory".)
final class Doorbell: Sendable {
    private struct Waiter {
        let token: UInt64
        let continuation: CheckedContinuation<Bool, Never>
        let timer: (any DispatchSourceTimer)?
    }

    private struct State {
        /// A ring nobody has waited for yet.
        var pending = false
        /// The one waiting task (the drainer), if it waits.
        var waiter: Waiter?
        /// The last token handed to a wait, and the token of a wait cancelled before it waited.
        var lastToken: UInt64 = 0
        var cancelledToken: UInt64?
    }

    private let state = Mutex(State())

    /// Creates a doorbell nobody has rung.
    init() {}

    /// Rings: the next (or current) ``wait()`` returns.
    func ring() {
        state.withLock { state in
            guard let waiter = state.waiter else {
                state.pending = true
                return
            }
            state.waiter = nil
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// Waits for a ring (or returns at once if one is pending). Returns false when cancelled.
    @discardableResult
    func wait() async -> Bool {
        await wait(limit: nil)
    }

    /// Waits for a ring, at most `limit`. Returns false when cancelled, true otherwise (rung or not).
    @discardableResult
    func wait(atMost limit: Duration) async -> Bool {
        await wait(limit: limit)
    }

    private func wait(limit: Duration?) async -> Bool {
        let token = state.withLock { state in
            state.lastToken &+= 1
            return state.lastToken
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                state.withLock { state in
                    if state.cancelledToken == token {
                        state.cancelledToken = nil
                        continuation.resume(returning: false)
                    } else if state.pending {
                        state.pending = false
                        continuation.resume(returning: true)
                    } else {
                        // One waiter at a time (the drainer); a second one wakes the first
                        // rather than leaving it waiting for good.
                        if let previous = state.waiter {
                            previous.timer?.cancel()
                            previous.continuation.resume(returning: true)
                        }
                        state.waiter = Waiter(token: token, continuation: continuation, timer: limit.map { armTimer($0, token: token) })
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                guard let waiter = state.waiter, waiter.token == token else {
                    state.cancelledToken = token
                    return
                }
                state.waiter = nil
                waiter.timer?.cancel()
                waiter.continuation.resume(returning: false)
            }
        }
    }

    /// A one-shot timer that ends the wait `token` after `limit` unless something else ends it first.
    private func armTimer(_ limit: Duration, token: UInt64) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let (seconds, attoseconds) = limit.components
        let nanoseconds = min(max(0, seconds), 1 << 32) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        timer.schedule(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)))
        timer.setEventHandler { [self] in timeUp(token) }
        timer.resume()
        return timer
    }

    private func timeUp(_ token: UInt64) {
        state.withLock { state in
            guard let waiter = state.waiter, waiter.token == token else { return }
            state.waiter = nil
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }
}
