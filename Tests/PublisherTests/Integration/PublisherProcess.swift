import Foundation
import Synchronization
import WhereaboutsTestSupport

/// The real `whereabouts-pub` binary run as a child process, its log (stderr) in a file.
final class PublisherProcess: Sendable {
    let process: Process
    let logFile: URL

    /// The built binary next to the test bundle.
    static var executable: URL? { TestPaths.builtExecutable(named: "whereabouts-pub") }

    /// Starts the binary with `arguments`; its stderr and stdout go to `logFile` (appended).
    init(arguments: [String], logFile: URL, environment: [String: String] = [:]) throws {
        guard let executable = Self.executable else {
            throw SetupError("the whereabouts-pub binary (build it first)")
        }
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: logFile)
        handle.seekToEndOfFile()
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "WHEREABOUTS_PASSWORD")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        self.logFile = logFile
        try process.run()
    }

    /// Sends a signal.
    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit, at most `timeout`; returns its exit status.
    func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let process = self.process
        try await waitUntil("whereabouts-pub to exit", timeout: timeout, interval: .milliseconds(20)) { !process.isRunning }
        return process.terminationStatus
    }

    /// Whether it ended by a signal.
    var wasKilled: Bool { process.terminationReason == .uncaughtSignal }

    /// The log so far.
    var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `text`.
    func waitForLog(_ text: String, timeout: Duration = .seconds(15)) async throws {
        try await waitUntil("'\(text)' in the publisher log", timeout: timeout) { [self] in log.contains(text) }
    }

    /// Waits until the shared log holds `text` at least `count` times (runs share one log file).
    func waitForLogCount(_ text: String, atLeast count: Int, timeout: Duration = .seconds(15)) async throws {
        try await waitUntil("\(count) × '\(text)' in the publisher log", timeout: timeout) { [self] in
            log.components(separatedBy: text).count - 1 >= count
        }
    }

    /// When the publisher logged the first line holding `text`, on its own clock: the line's
    /// timestamp (swift-log's `StreamLogHandler`, whole seconds, e.g. `2026-11-28T11:36:58+0000`);
    /// `nil` when no line holds it. Unlike the moment a test sees the line, this does not include
    /// the time the test process itself waited for a thread among the suites running beside it.
    func loggedTime(of text: String) -> Date? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains(text) }),
              let stamp = line.split(separator: " ").first else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        return formatter.date(from: String(stamp))
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// A test precondition that failed (a binary not built, a helper that exited with an error).
struct SetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
