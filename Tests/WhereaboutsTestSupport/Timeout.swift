/// Thrown by `withTimeout` when the awaited work did not finish in time.
public struct TimeoutError: Error, CustomStringConvertible {
    /// What was being awaited.
    public var what: String
    /// The bound that passed.
    public var timeout: Duration
    /// "Timed out after 5 seconds waiting for <what>."
    public var description: String { "Timed out after \(timeout) waiting for \(what)." }
}

/// Runs `body` and returns its result, or throws `TimeoutError` once `timeout` passes (the body
/// is then cancelled). Use it around every await on an event in a test, so no test hangs.
public func withTimeout<T: Sendable>(
    _ timeout: Duration, _ what: String = "an event",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimeoutError(what: what, timeout: timeout)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Polls `condition` every `interval` until it holds, throwing `TimeoutError` after `timeout`.
/// For conditions that have no event to await (a file appearing, a port opening).
///
/// The default bound is 30 s: the whole suite runs on two cores, and a process or broker started
/// while a hundred suites and headless Chromiums start beside it has taken more than 10 s to
/// get going (fresh-clone CI, "waiting for the subscriptions"); a condition that holds returns at
/// once, so only a failure waits that long.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(30), interval: Duration = .milliseconds(20),
    _ condition: @escaping @Sendable () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TimeoutError(what: what, timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}
