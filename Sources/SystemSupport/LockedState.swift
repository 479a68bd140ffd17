#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a lock, for state that a thread of our own (libmosquitto's loop, a position
/// source's reader) shares with Swift tasks; that thread may block until the value satisfies a
/// condition (``wait(until:deadline:)``).
///
/// The project's lock rule (docs/architecture.md, "Locks"): state that a dedicated thread blocks
/// on, and all shared state in `WhereaboutsMQTT` (which libmosquitto's thread enters and the
/// thread-sanitizer pass of `scripts/test` covers), is a `LockedState`; state shared only by Swift
/// tasks is a `Synchronization.Mutex`. No hand-paired lock/unlock calls anywhere. This type plays
/// the role of `Mutex`, but over a pthread mutex and condition variable (``PthreadCondition``): the thread
/// sanitizer follows pthread locking, while on Linux it cannot see the futex-based ordering of
/// `Mutex` and reports races between two `withLock` bodies that cannot overlap.
package final class LockedState<State>: @unchecked Sendable {
    // @unchecked Sendable: `state` and `waiting` are read and written only with `condition` locked.
    private let condition = PthreadCondition()
    private var state: State
    /// How many threads block in `wait(until:deadline:)`; `withLock` wakes them only when nonzero.
    private var waiting = 0

    /// Creates the guarded value.
    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the value and returns what it returns. Threads blocked
    /// in ``wait(until:deadline:)`` then check their condition again.
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        condition.lock()
        defer {
            if waiting > 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body(&state)
    }

    /// Blocks the calling thread until `isSatisfied` holds for the value or `deadline` passes;
    /// returns whether it holds. Every ``withLock(_:)`` call wakes the waiter to check again.
    /// Never call it from a Swift task: it blocks a thread of the cooperative pool.
    @discardableResult
    package func wait(until isSatisfied: (State) -> Bool, deadline: ContinuousClock.Instant? = nil) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isSatisfied(state) {
            waiting += 1
            defer { waiting -= 1 }
            if let deadline {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { return false }
                condition.wait(for: remaining)
            } else {
                condition.wait()
            }
        }
        return true
    }
}

/// A pthread mutex and condition variable, as Foundation's `NSCondition` wrapped them
/// (FoundationEssentials has no `NSCondition`). Timed waits count on the monotonic clock.
/// Used only through ``LockedState``, which pairs every lock with its unlock.
final class PthreadCondition: @unchecked Sendable {
    // @unchecked Sendable: the pthread objects are the lock; their storage never moves.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
    /// Waits (the mutex locked) until woken.
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (the mutex locked) until woken or `duration` has passed.
    func wait(for duration: Duration) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let (seconds, attoseconds) = duration.components
        var nanoseconds = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = timespec(tv_sec: now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000, tv_nsec: 0)
        nanoseconds %= 1_000_000_000
        deadline.tv_nsec = nanoseconds
        pthread_cond_timedwait(condition, mutex, &deadline)
    }
}
