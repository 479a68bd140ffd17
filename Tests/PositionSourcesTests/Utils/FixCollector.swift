import Foundation
import WhereaboutsTestSupport
import WhereaboutsCore

/// Collects the fixes a source yields in a background task, so a test can wait (bounded) for a
/// condition on them while it changes the world around the source (restarting gpsd, say).
actor FixCollector {
    private(set) var fixes: [Fix] = []
    private var waiters: [UUID: (predicate: @Sendable ([Fix]) -> Bool, continuation: CheckedContinuation<Void, any Error>)] = [:]

    /// Adds a fix and wakes the waiters whose condition now holds.
    func append(_ fix: Fix) {
        fixes.append(fix)
        for (id, waiter) in waiters where waiter.predicate(fixes) {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    /// Returns once `predicate` holds for the fixes collected so far; fails after `timeout` seconds.
    func wait(timeout: Double, until predicate: @escaping @Sendable ([Fix]) -> Bool) async throws {
        try await withTimeout(.seconds(timeout), "fixes the test waits for") { try await self.waitUntil(predicate) }
    }

    private func waitUntil(_ predicate: @escaping @Sendable ([Fix]) -> Bool) async throws {
        if predicate(fixes) { return }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters[id] = (predicate, continuation)
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    private func cancelWaiter(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume(throwing: CancellationError())
    }
}
