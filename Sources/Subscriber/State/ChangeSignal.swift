/// Wakes the one task waiting for something to become due (the view publisher; the status file's
/// writer; the receipt sender): a flag set by every change and cleared by each collection, and
/// the parked waiter's continuation.
struct ChangeSignal: Sendable {
    private var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
    private var nextWaiterID: UInt64 = 0
    /// Whether something changed since the last collection.
    private(set) var isSignalled = false

    /// Records a change and resumes the waiter, if any.
    mutating func signal() {
        isSignalled = true
        waiter.take()?.continuation.resume()
    }

    /// Clears the flag: a collection took everything.
    mutating func reset() {
        isSignalled = false
    }

    /// A fresh id for the next waiter.
    mutating func makeWaiterID() -> UInt64 {
        defer { nextWaiterID += 1 }
        return nextWaiterID
    }

    /// Parks `continuation`, resuming any waiter it replaces.
    mutating func park(_ continuation: CheckedContinuation<Void, Never>, id: UInt64) {
        waiter?.continuation.resume()
        waiter = (id, continuation)
    }

    /// Resumes the waiter `id` if it is still parked (its task was cancelled).
    mutating func cancel(_ id: UInt64) {
        guard let parked = waiter, parked.id == id else { return }
        waiter = nil
        parked.continuation.resume()
    }
}
