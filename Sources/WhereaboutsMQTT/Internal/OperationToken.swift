internal import WhereaboutsCore
internal import SystemSupport

/// Links a waiting operation to its message id so that task cancellation can find it, whichever
/// of "id registered" and "task cancelled" happens first.
final class OperationToken: Sendable {
    private enum State { case starting, registered(Int32), cancelled }
    private let state = LockedState(State.starting)

    /// Records the id; returns false when the task was cancelled meanwhile.
    func register(_ mid: Int32) -> Bool {
        state.withLock { state in
            if case .cancelled = state { return false }
            state = .registered(mid)
            return true
        }
    }

    /// Marks the task cancelled; returns the id to cancel if one was registered.
    func cancel() -> Int32? {
        state.withLock { state in
            defer { state = .cancelled }
            if case .registered(let mid) = state { return mid }
            return nil
        }
    }
}
