import Foundation

/// Runs blocking or long synchronous work on a thread of its own, so that the awaiting task does
/// not hold a thread of Swift concurrency's cooperative pool meanwhile.
///
/// The pool has one thread per core: two on the CI machine. A test that spends seconds in a
/// synchronous loop (parsing 200,000 generated track points, writing a 120 MB file) or blocked in
/// a system call (reading a child's output to its end) holds one of them for that long; two at
/// once stop every other task of the run, and timing tests elsewhere failed (a 10 s timeout did
/// not fire for 20 s). A thread of its own competes for the cores through the kernel's scheduler
/// instead, as any other process does, and the pool goes on running tasks.
public enum OffPool {
    /// Runs `body` on a new thread and returns (or throws) what it did.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// The same for work that cannot throw.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
