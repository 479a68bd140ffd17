import Foundation
import WhereaboutsTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd started by `gpsfake` on a free loopback port, replaying an NMEA log in a loop
/// (Debian packages gpsd and gpsd-clients).
final class GpsFake {
    let port: Int
    private let process: Process
    private let exited: AsyncStream<Void>

    /// Whether gpsfake is installed (the gpsd tests are skipped otherwise).
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake") }

    /// Starts gpsfake feeding `log` to its gpsd on `port`, one sentence every `cycle` seconds.
    init(log: URL, port: Int, cycle: Double = 0.01) throws {
        self.port = port
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
        // -q quiet, -c pace, -P port; no -1, so the log loops and data written before gpsd opens
        // the device is simply replayed later.
        process.arguments = ["-q", "-c", String(cycle), "-P", String(port), log.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        exited = stream
        process.terminationHandler = { _ in continuation.finish() }
        try process.run()
    }

    /// Whether gpsfake is still running (it exits when its gpsd does not start in time).
    var isRunning: Bool { process.isRunning }

    /// Stops gpsfake and its gpsd. gpsfake leaves its gpsd running when it is signalled, and that
    /// gpsd ignores SIGTERM, so the gpsd started for this gpsfake (found by its control socket
    /// `$TMPDIR/gpsfake-<pid>.sock` in /proc, `TMPDIR` defaulting to `/tmp` as in gpsfake's
    /// `gps/fake.py`) is killed by process id.
    func stop() async {
        let folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let daemons = Self.processes(withArgument: "\(folder)/gpsfake-\(process.processIdentifier).sock")
        if process.isRunning {
            process.interrupt()
            let exited = exited
            do {
                try await withTimeout(.seconds(5)) { for await _ in exited {} }
            } catch {
                kill(process.processIdentifier, SIGKILL)
            }
        }
        for pid in daemons { kill(pid, SIGKILL) }
    }

    /// The ids of processes with `argument` among their command-line arguments.
    private static func processes(withArgument argument: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains(argument) ? pid : nil
        }
    }
}
