import Foundation

/// A value guarded by a lock, for state that libmosquitto's thread and Swift tasks share.
///
/// It plays the role of `Synchronization.Mutex`, but over a pthread mutex (`NSLock`): the thread
/// sanitizer follows pthread locking, while on Linux it cannot see the futex-based ordering of
/// `Mutex` and reports races between two `withLock` bodies that cannot overlap. The MQTT tests run
/// under the thread sanitizer, so everything on their path uses this type.
package final class LockedState<State>: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and written only inside `withLock`, with `lock` held.
    private let lock = NSLock()
    private var state: State

    /// Creates the guarded value.
    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    package func withLock<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
