import Foundation

/// Runs a command-line tool to its end and returns what it printed: the one way tests run a tool
/// to completion (for a long-running child, see ``ChildProcess``).
///
/// `Process.waitUntilExit()` and reading a pipe to its end block the calling thread. Called from
/// an async test they block one of the pool's threads (two on a two-core machine) for as long as
/// the tool runs; a few such tests at once stalled every other suite of the run for 30 s (timing
/// tests failed, brokers' subscriptions timed out). ``run(_:_:environment:input:)`` therefore runs
/// the blocking calls on a thread of its own (``OffPool``); ``runBlocking(_:_:environment:input:)`` is for
/// synchronous callers (set-up in an initialiser, tear-down in `deinit`).
public enum ToolRun {
    /// What the tool did.
    public struct Output: Sendable {
        /// Its exit status (or the signal that ended it).
        public var status: Int32
        /// Everything it wrote to standard output, as bytes.
        public var stdoutData: Data
        /// Everything it wrote to standard error.
        public var stderr: String

        /// Standard output as text.
        public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
    }

    /// Runs `executable` with `arguments` (and `environment`, if given; `input` on its standard
    /// input) and waits for its end, off the cooperative pool.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) async throws -> Output {
        try await OffPool.run { try runBlocking(executable, arguments, environment: environment, input: input) }
    }

    /// A tool that exited with a status other than 0.
    public struct Failure: Error, CustomStringConvertible {
        /// The command line and what the tool printed.
        public var description: String
    }

    /// Runs the tool, blocking the calling thread, and throws ``Failure`` (with its output) unless
    /// it exits with 0: for set-up steps (`mosquitto_passwd`, `openssl`, `mount`).
    @discardableResult
    public static func runChecked(_ executable: String, _ arguments: [String]) throws -> Output {
        let result = try runBlocking(executable, arguments)
        guard result.status == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited with \(result.status): \(result.stdout)\(result.stderr)")
        }
        return result
    }

    /// The same, blocking the calling thread.
    public static func runBlocking(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> Output {
        // Standard input and standard error go through files, so only one pipe is read and a tool
        // that fills one stream while we wait on another cannot deadlock.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputFile = scratch.appendingPathComponent("stdin"), errorFile = scratch.appendingPathComponent("stderr")
        try (input ?? Data()).write(to: inputFile)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let stdin = try FileHandle(forReadingFrom: inputFile), stderr = try FileHandle(forWritingTo: errorFile)
        defer { try? stdin.close(); try? stderr.close() }
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = stderr
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = (try? Data(contentsOf: errorFile)) ?? Data()
        return Output(status: process.terminationStatus, stdoutData: stdout, stderr: String(decoding: errors, as: UTF8.self))
    }
}
