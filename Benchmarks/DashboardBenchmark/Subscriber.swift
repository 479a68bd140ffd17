import Foundation
import WhereaboutsTestSupport

/// The real `whereabouts-sub` binary with its dashboard on a free port, against `broker`.
final class Subscriber: Sendable {
    let process: ChildProcess
    let httpPort: Int
    let directory: URL

    init(binary: String, brokerPort: Int, circles: String, directory: URL) async throws {
        httpPort = try FreePort.find()
        self.directory = directory
        process = try ChildProcess.spawn(binary, [
            "run", "--circles", circles, "--broker", "mqtt://127.0.0.1:\(brokerPort)", "--http-port", "\(httpPort)",
            "--client-id", "bench-sub-\(httpPort)", "--log-level", "warning",
        ], logFile: directory.appendingPathComponent("whereabouts-sub.log"))
        let deadline = ContinuousClock.now + .seconds(30)
        while !FreePort.isAccepting(httpPort) {
            guard ContinuousClock.now < deadline else { throw BenchError("whereabouts-sub did not open port \(httpPort); see \(directory.path)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Resident memory in bytes, from /proc/<pid>/status (VmRSS).
    var residentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    func stop() async {
        process.signal(SIGTERM)
        do {
            try await withTimeout(.seconds(10), "whereabouts-sub to stop") { _ = await self.process.waitForExit() }
        } catch {
            process.signal(SIGKILL)
            _ = await process.waitForExit()
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
