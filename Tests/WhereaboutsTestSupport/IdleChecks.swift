import Foundation
import Synchronization

/// How often a process woke its CPU over a window: the voluntary context switches of all its
/// threads (`/proc/PID/task/*/status`), each a time a thread went to sleep, so each wake-up
/// counts once. How docs/publisher.md, docs/subscriber.md and docs/dashboard.md measure "wake-ups
/// while idle"; a thread that sleeps until its deadline gives the same count on a loaded machine.
public struct WakeUpCount: Sendable {
    /// The count before the window (0 when `/proc` could not be read).
    public var before: Int
    /// The wake-ups during the window.
    public var count: Int
    /// The window's length as measured.
    public var seconds: Double
    /// Wake-ups per second.
    public var rate: Double { count == 0 ? 0 : Double(count) / seconds }

    /// Counts `pid`'s wake-ups over `window` (the caller waits that long).
    public static func measure(pid: pid_t, over window: Duration) async throws -> WakeUpCount {
        let before = voluntarySwitches(of: pid)
        let start = ContinuousClock.now
        try await Task.sleep(for: window)
        let after = voluntarySwitches(of: pid)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return WakeUpCount(before: before, count: after - before, seconds: seconds)
    }

    /// Voluntary context switches of every thread of `pid` so far.
    public static func voluntarySwitches(of pid: pid_t) -> Int {
        let tasks = "/proc/\(pid)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.reduce(0) { total, thread in
            let status = procText("\(tasks)/\(thread)/status")
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            let count = line.flatMap { Int($0.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces)) }
            return total + (count ?? 0)
        }
    }

    /// A /proc file's text (its size reads as 0, so it is read to the end in chunks).
    static func procText(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Whether `task` is still running after `wait`: for a wait that nothing should have ended (a
/// task parked on a doorbell nobody rang). The wait is how long it must *not* end, not a
/// synchronisation.
public func isStillRunning(_ task: Task<Void, Never>, after wait: Duration = .milliseconds(300)) async -> Bool {
    let flag = EndFlag()
    Task {
        await task.value
        flag.ended.store(true, ordering: .relaxed)
    }
    try? await Task.sleep(for: wait)
    return !flag.ended.load(ordering: .relaxed)
}

/// Set once a watched task ended (``isStillRunning(_:after:)``).
private final class EndFlag: Sendable {
    let ended = Atomic<Bool>(false)
}
