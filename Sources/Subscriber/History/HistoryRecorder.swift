import Synchronization

/// The hand-over between ingest and the history writer: ingest appends a row under a mutex and
/// goes on (it never waits for SQLite); the writer takes everything pending as one batch.
///
/// Bounded: past ``capacity`` pending rows (the disk cannot keep up, or writes fail) new rows
/// are dropped and counted, so a stuck disk costs memory up to the cap, never ingest.
final class HistoryRecorder: Sendable {
    private struct State {
        var pending: [HistoryRow] = []
        var inFlight = 0
        var dropped = 0
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Rows accepted so far, and how many of the oldest of them are committed (receipts,
        /// docs/receipts.md); a batch given up freezes the committed count.
        var recorded = 0
        var committed = 0
        var gaveUp = false
    }

    private let state = Mutex(State())
    /// The most rows waiting for the writer.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Hands `row` to the writer; `false` when it was dropped because ``capacity`` rows wait.
    @discardableResult
    func record(_ row: HistoryRow) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.pending.count < capacity, !state.finished else {
                state.dropped += 1
                return (false, nil)
            }
            state.pending.append(row)
            state.recorded += 1
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return accepted
    }

    /// Waits for rows and takes up to `limit` of them, oldest first, with the count of rows
    /// dropped since the last call; `nil` once ``finish()`` was called and nothing is left.
    func next(limit: Int) async -> (rows: [HistoryRow], dropped: Int)? {
        while true {
            let taken = state.withLock { state -> (rows: [HistoryRow], dropped: Int)?? in
                if !state.pending.isEmpty {
                    let rows: [HistoryRow]
                    if state.pending.count <= limit {
                        rows = state.pending
                        state.pending = []
                        state.pending.reserveCapacity(rows.count)
                    } else {
                        rows = Array(state.pending.prefix(limit))
                        state.pending.removeFirst(limit)
                    }
                    state.inFlight = rows.count
                    defer { state.dropped = 0 }
                    return .some((rows, state.dropped))
                }
                return state.finished ? .some(nil) : nil
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state in
                        guard state.pending.isEmpty, !state.finished else { return true }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                finish()
            }
        }
    }

    /// The ticket of the row accepted last: it is committed once ``committedThrough`` reaches it.
    var lastTicket: Int {
        state.withLock { $0.recorded }
    }

    /// How many of the oldest accepted rows are committed (rows are written in order).
    var committedThrough: Int {
        state.withLock { $0.committed }
    }

    /// Records that the batch of `count` rows taken last was committed; after a batch was given
    /// up (``gaveUp()``) nothing later counts, so no receipt covers a row that was not stored.
    func committed(_ count: Int) {
        state.withLock { state in
            if !state.gaveUp { state.committed += count }
        }
    }

    /// Records that the batch taken last was given up.
    func gaveUp() {
        state.withLock { $0.gaveUp = true }
    }

    /// Marks the batch taken by the last ``next(limit:)`` as written (or given up).
    func completed() {
        state.withLock { $0.inFlight = 0 }
    }

    /// Rows handed over and not yet written: pending plus the batch being written.
    var backlog: Int {
        state.withLock { $0.pending.count + $0.inFlight }
    }

    /// Whether ``finish()`` was called.
    var isFinished: Bool {
        state.withLock { $0.finished }
    }

    /// Refuses new rows and lets ``next(limit:)`` return what is left, then `nil`.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
