import Foundation

/// Runs a command-line tool to its end and returns what it printed, without holding a thread of
/// the cooperative pool while it runs.
///
/// `Process.waitUntilExit()` and reading a pipe to its end block the calling thread. Called from
/// an async test they block one of the pool's threads (two on a two-core machine) for as long as
/// the tool runs; a few such tests at once stalled every other suite of the run for 30 s (timing
/// tests failed, brokers' subscriptions timed out). Here the blocking calls run on a thread of
/// their own.
public enum ToolRun {
    /// What the tool did.
    public struct Output: Sendable {
        /// Its exit status (or the signal that ended it).
        public var status: Int32
        /// Everything it wrote to standard output.
        public var stdout: String
        /// Everything it wrote to standard error.
        public var stderr: String
    }

    /// Runs `executable` with `arguments` (and `environment`, if given) and waits for its end.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try runBlocking(executable, arguments, environment: environment) })
            }.start()
        }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String]?) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Standard error is read on another thread, so that a tool filling one pipe while we
        // wait on the other cannot deadlock.
        let errors = ErrorPipeReader(err.fileHandleForReading)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Reads a pipe to its end on a thread of its own; `wait()` returns what was read.
private final class ErrorPipeReader: @unchecked Sendable {
    // `data` is written once by the reading thread before it signals `done`, and read only
    // after `wait()` has seen the signal: the semaphore orders the two.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
