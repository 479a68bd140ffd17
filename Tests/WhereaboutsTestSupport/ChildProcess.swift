import Foundation
import WhereaboutsMQTT
internal import SystemSupport

#if canImport(Glibc)
import Glibc
internal import WhereaboutsCore
#endif

/// A child process for tests (a broker, a helper client), started with `posix_spawn` and a
/// clean signal mask.
///
/// Foundation's `Process` passes on the spawning thread's blocked signals, and the test
/// runner's threads block SIGTERM and SIGINT, so a child started that way ignores `SIGTERM`.
/// This type resets the mask and default dispositions, reaps the child on its own thread, and
/// lets tests await its exit.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// The child's standard output line by line, when `captureOutput` was requested (each
    /// access shares one underlying stream: iterate it from one place).
    public let outputLines: AsyncStream<String>?
    private let exit = LockedState<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))
    /// The peak resident set size the kernel reported when the child was reaped (`wait4`).
    private let peak = LockedState<Int?>(nil)

    private init(pid: pid_t, outputLines: AsyncStream<String>?) {
        self.pid = pid
        self.outputLines = outputLines
    }

    /// Starts `executable` with `arguments`. Standard input is /dev/null; standard error goes to
    /// `logFile` (or /dev/null); standard output goes to a pipe (`captureOutput`), `logFile`, or
    /// /dev/null.
    public static func spawn(
        _ executable: String, _ arguments: [String], logFile: URL? = nil, captureOutput: Bool = false
    ) throws -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let errorPath = logFile?.path ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var pipeEnds: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeEnds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }

        // The child gets standard input, output and error only: descriptors other tests hold open
        // at this moment (a pseudo-terminal, a socket, a pipe) must not live on in it.
        guard posix_spawn_file_actions_addclosefrom_np(&actions, 3) == 0 else { throw POSIXError(.EINVAL) }

        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        if captureOutput { close(pipeEnds[1]) }
        guard rc == 0 else {
            if captureOutput { close(pipeEnds[0]) }
            throw POSIXError(.init(rawValue: rc) ?? .EIO)
        }
        let lines = captureOutput ? readLines(from: pipeEnds[0]) : nil
        let child = ChildProcess(pid: pid, outputLines: lines)
        let childPID = pid
        let reaper = Thread {
            var status: Int32 = 0
            var usage = rusage()
            while wait4(childPID, &status, 0, &usage) < 0 && errno == EINTR {}
            child.peak.withLock { $0 = Int(usage.ru_maxrss) * 1024 }  // Linux: kilobytes
            child.markExited(status)
        }
        reaper.name = "whereabouts-test-reaper"
        reaper.start()
        return child
    }

    /// The kernel's `ru_maxrss` of the child, once it has exited; `nil` while it runs.
    ///
    /// Not the child's own peak when this process is larger: Linux starts a child's `ru_maxrss`
    /// at the high-water mark of the memory it had until `exec`, which for a spawned child is the
    /// test runner's (a `/bin/true` spawned by a 300 MB process reports 300 MB). To measure a
    /// program's own peak, run it under `/usr/bin/time -f %M`, which forks it from a small process
    /// (StreamingMemoryTests).
    public var peakResidentBytes: Int? { peak.withLock { $0 } }

    /// Whether the child has not exited yet.
    public var isRunning: Bool { exit.withLock { $0.status == nil } }

    /// Sends `signal` to the child if it is still running.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits until the child has exited; returns its raw wait status.
    @discardableResult
    public func waitForExit() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let status = exit.withLock { state -> Int32? in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Reads standard output until a line satisfying `predicate` appears (at most `timeout`).
    public func waitForOutputLine(
        timeout: Duration = .seconds(10), where predicate: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        guard let lines = outputLines else { throw TimeoutError(what: "output of a child without captured output", timeout: timeout) }
        return try await withTimeout(timeout, "a line from the child process") {
            for await line in lines where predicate(line) { return line }
            throw TimeoutError(what: "a matching line (the child closed its output)", timeout: timeout)
        }
    }

    /// Reads `fd` on its own thread until end of file, as lines.
    private static func readLines(from fd: Int32) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            var pending = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
            close(fd)
            continuation.finish()
        }
        reader.name = "whereabouts-test-reader"
        reader.start()
        return stream
    }

    deinit {
        if isRunning { kill(pid, SIGKILL) }
    }

    private func markExited(_ status: Int32) {
        let waiters = exit.withLock { state in
            state.status = status
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }
}

// glibc (2.34 and later, Debian 12 has 2.36) declares this behind _GNU_SOURCE, which Swift's Glibc
// module does not define; it takes plain C values, so binding the symbol directly is safe.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func posix_spawn_file_actions_addclosefrom_np(
    _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowestDescriptor: Int32
) -> Int32
