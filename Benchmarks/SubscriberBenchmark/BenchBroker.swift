import Foundation
import WhereaboutsTestSupport

/// A mosquitto for the benchmark: free loopback port, its own config in a temp folder, queues
/// large enough to hold the whole message stream for offline persistent sessions.
final class BenchBroker {
    let port: Int
    let directory: URL
    private let process: Process
    /// The broker's process id, to read its CPU time.
    var processIdentifier: Int32 { process.processIdentifier }

    init() throws {
        port = try FreePort.find()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sub-bench-\(getpid())-\(port)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("mosquitto.conf")
        var lines = [
            "listener \(port) 127.0.0.1", "set_tcp_nodelay true", "allow_anonymous true", "persistence false",
            "max_queued_messages 2000000", "max_queued_bytes 0", "max_inflight_messages 1000",
            "log_dest file \(directory.appendingPathComponent("mosquitto.log").path)",
        ]
        if getuid() == 0 { lines.append("user root") }
        try lines.joined(separator: "\n").appending("\n").write(to: configuration, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", configuration.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FreePort.isAccepting(port) {
            guard Date() < deadline else { throw BenchError("mosquitto did not start on port \(port)") }
            usleep(20_000)
        }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a program and returns its wall-clock time; throws if it fails.
@discardableResult
func runProgram(_ path: String, _ arguments: [String]) throws -> Duration {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    // Waited for on a semaphore: Foundation's waitUntilExit spins its run loop here, and that
    // spinning took a core from the program being timed.
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    let start = ContinuousClock.now
    try process.run()
    exited.wait()
    let elapsed = ContinuousClock.now - start
    guard process.terminationStatus == 0 else {
        throw BenchError("\(path) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
    return elapsed
}

/// CPU time (user + system) consumed so far, for the per-message CPU cost lines of the ingest
/// benchmark: this process's own, its finished children's, or another process's from /proc.
enum CPUTime {
    static func ofSelf() -> Double { usage(RUSAGE_SELF.rawValue) }
    static func ofChildren() -> Double { usage(RUSAGE_CHILDREN.rawValue) }

    static func of(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func usage(_ who: __rusage_who_t) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
