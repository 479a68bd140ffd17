import Foundation
import Synchronization

/// When the publisher's main MQTT connection came up (`nil` while it is down), and the tasks
/// waiting for it to come up: ``waitUntilConnected(timeout:)`` wakes when ``markConnected(at:)``
/// records the connection, instead of polling.
final class ConnectionUptime: Sendable {
    private struct State {
        var since: Date?
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        /// Waiters whose task was cancelled before they registered.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// When the connection came up, or `nil` while it is down.
    var since: Date? { state.withLock { $0.since } }

    /// How many tasks wait for the connection (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Records that the connection is up since `date`, and wakes every waiter.
    func markConnected(at date: Date) {
        let waiters = state.withLock { state in
            state.since = date
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Records that the connection is down; returns whether it was up.
    func markDisconnected() -> Bool {
        state.withLock { state in
            defer { state.since = nil }
            return state.since != nil
        }
    }

    /// Waits until the connection is up, at most `timeout`; returns whether it is. Returns
    /// `false` at once when the task is cancelled.
    func waitUntilConnected(timeout: Duration) async -> Bool {
        if since != nil { return true }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.connected(waiter: id) }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch {}
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Suspends until ``markConnected(at:)`` (true) or cancellation (false).
    private func connected(waiter id: UInt64) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    if state.since != nil { return true }
                    if state.cancelled.remove(id) != nil { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: id)
                if waiter == nil { state.cancelled.insert(id) }
                return waiter
            }
            waiter?.resume(returning: false)
        }
    }
}
