import Foundation
import HummingbirdWSClient
import Logging
import WhereaboutsTestSupport

/// Errors from driving Chromium; each says what to check.
enum ChromiumError: Error, CustomStringConvertible {
    /// The `chromium` binary is missing.
    case notInstalled
    /// Chromium exited or never opened its DevTools port; `log` is the tail of its stderr.
    case didNotStart(log: String)
    /// A DevTools command failed.
    case command(method: String, message: String)
    /// A DevTools command got no answer in time.
    case timedOut(method: String)
    /// The DevTools connection closed while commands were waiting.
    case disconnected

    var description: String {
        switch self {
        case .notInstalled: "chromium is not installed; run scripts/install-deps."
        case .didNotStart(let log): "Chromium did not open its DevTools port. Its log ends with:\n\(log)"
        case .command(let method, let message): "DevTools \(method) failed: \(message)"
        case .timedOut(let method): "DevTools \(method) got no answer in time."
        case .disconnected: "The DevTools connection closed."
        }
    }
}

/// Starts a real headless Chromium (Debian package `chromium`) with its own profile in a temp
/// folder and a DevTools port chosen by Chromium, runs `body` with one page, then stops it.
enum HeadlessChromium {
    static let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static var isInstalled: Bool { executable != nil }

    /// Runs `body` with a fresh page sized `width` x `height` CSS pixels; `mobile` emulates a phone
    /// (viewport meta honoured, touch events); `arguments` go to Chromium's command line (such as
    /// `--host-resolver-rules=MAP evil.example 127.0.0.1`).
    static func withPage<T: Sendable>(
        width: Int = 1280,
        height: Int = 800,
        mobile: Bool = false,
        arguments: [String] = [],
        _ body: @escaping @Sendable (DevToolsPage) async throws -> T
    ) async throws -> T {
        guard let executable else { throw ChromiumError.notInstalled }
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("whereabouts-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await run(executable, profile: profile, width: width, height: height, mobile: mobile, arguments: arguments, body))
        } catch {
            outcome = .failure(error)
        }
        // The profile is a tree of hundreds of files: removed off the cooperative pool.
        await OffPool.run { _ = try? FileManager.default.removeItem(at: profile) }
        return try outcome.get()
    }

    /// Starts Chromium on `profile`, runs `body` with a page, then kills Chromium and awaits its
    /// end (through its termination handler: `waitUntilExit()` would hold a thread of the pool).
    private static func run<T: Sendable>(
        _ executable: String, profile: URL, width: Int, height: Int, mobile: Bool, arguments: [String],
        _ body: @escaping @Sendable (DevToolsPage) async throws -> T
    ) async throws -> T {
        let logURL = profile.appendingPathComponent("chromium.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--remote-debugging-port=0", "--remote-allow-origins=*",
            "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-sync", "--mute-audio",
        ] + arguments + [
            "about:blank",
        ]
        process.standardOutput = log
        process.standardError = log
        let (exited, exitSink) = AsyncStream.makeStream(of: Void.self)
        process.terminationHandler = { _ in exitSink.finish() }
        try process.run()
        let pid = process.processIdentifier

        let outcome: Result<T, any Error>
        do {
            let browserURL = try await devToolsURL(profile: profile, logURL: logURL, isRunning: { process.isRunning })
            outcome = .success(try await DevToolsSession.withConnection(to: browserURL) { session in
                let page = try await session.openPage(width: width, height: height, mobile: mobile)
                return try await body(page)
            })
        } catch {
            outcome = .failure(error)
        }
        kill(pid, SIGKILL)
        _ = try? await withTimeout(.seconds(10), "Chromium to end after SIGKILL") { for await _ in exited {} }
        return try outcome.get()
    }

    /// Waits, up to 30 s, for Chromium to write `DevToolsActivePort` (port, then browser path).
    private static func devToolsURL(profile: URL, logURL: URL, isRunning: () -> Bool) async throws -> String {
        let file = profile.appendingPathComponent("DevToolsActivePort")
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                let lines = text.split(separator: "\n")
                if lines.count >= 2, let port = Int(lines[0]) {
                    return "ws://127.0.0.1:\(port)\(lines[1])"
                }
            }
            guard isRunning() else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        throw ChromiumError.didNotStart(log: String(output.suffix(2000)))
    }
}
