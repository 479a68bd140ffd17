import Synchronization

/// Links a waiting operation to its message id so that task cancellation can find it, whichever
/// of "id registered" and "task cancelled" happens first.
///
/// One atomic word instead of a lock: every publish makes a token, and a lock object (an
/// `NSCondition` with its mutex and condition variable) cost several allocations per publish.
final class OperationToken: Sendable {
    /// `starting` before the id is known, `cancelled` once the task was cancelled, otherwise the
    /// registered id (libmosquitto's message ids are 1...65535, so never either marker).
    private static let starting: Int64 = -1
    private static let cancelled: Int64 = -2
    private let state = Atomic<Int64>(OperationToken.starting)

    /// Records the id; returns false when the task was cancelled meanwhile.
    func register(_ mid: Int32) -> Bool {
        state.compareExchange(expected: Self.starting, desired: Int64(mid), ordering: .acquiringAndReleasing).exchanged
    }

    /// Marks the task cancelled; returns the id to cancel if one was registered.
    func cancel() -> Int32? {
        let previous = state.exchange(Self.cancelled, ordering: .acquiringAndReleasing)
        return previous >= 0 ? Int32(truncatingIfNeeded: previous) : nil
    }
}
