/// The error of a bounded wait that ran out.
struct TimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "Gave up after \(seconds) s" }
}

/// Runs `body`, failing with ``TimedOut`` if it has not finished within `seconds`. Every wait on
/// an external event in these tests goes through this, so no test can hang.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw TimedOut(seconds: seconds)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimedOut(seconds: seconds) }
        return first
    }
}
