// The OwnTracks Recorder API's speed against the real whereabouts-sub binary (issue 14): how many
// points per second `GET /api/0/locations` streams out of a history of about 10 million points,
// and how long `GET /api/0/last` takes for 10,000 devices, each side by side with the same query
// run by the plain `sqlite3` command on the same file in the same run (the baseline; the ratio is
// the baseline's time over whereabouts-sub's, above 1 when the server is faster). Also the
// server's resident memory while it streams a million points (it should stay flat). Build and run
// in release:
//
//   swift build -c release --product whereabouts-sub --product RecorderBenchmark
//   .build/release/RecorderBenchmark [--binary .build/release/whereabouts-sub] [--members 10000]
//       [--per-member 900] [--one 1000000] [--rounds 3] [--folder /tmp/whereabouts-recorder-bench]
//
// The history file is made once (schema by whereabouts-sub, rows by sqlite3) and kept in the
// folder for later runs.
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import WhereaboutsTestSupport

/// The sizes of the history, where it is kept, and the server binary under test.
struct Options: ParsableArguments {
    @Option(help: "The whereabouts-sub binary to measure (a release build for numbers to quote).")
    var binary = ".build/release/whereabouts-sub"

    @Option(help: "The number of devices in the history (the first holds --one points, each other --per-member); /api/0/last answers for all of them.")
    var members = 10_000

    @Option(help: "The points of each device but the first, one a minute.")
    var perMember = 900

    @Option(help: "The points of the first device, one a second: what /api/0/locations streams out per request.")
    var one = 1_000_000

    @Option(help: "How many times each query runs, on the server and with sqlite3; the median is reported.")
    var rounds = 3

    @Option(help: "The folder holding the history file (made on the first run, reused after), circles.yaml and the server's log.")
    var folder = "/tmp/whereabouts-recorder-bench"

    func validate() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ValidationError("--binary \(binary) is not an executable; build it with swift build -c release --product whereabouts-sub.")
        }
        guard members >= 1, perMember >= 1, one >= 1 else {
            throw ValidationError("--members, --per-member and --one must each be at least 1.")
        }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1.") }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `sqlite3` with `arguments`, its output thrown away (or returned), and the seconds it took.
func sqlite(_ arguments: [String], keepOutput: Bool = false) throws -> (seconds: Double, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = keepOutput ? pipe : FileHandle.nullDevice
    let start = ContinuousClock.now
    try process.run()
    let data = keepOutput ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchError("sqlite3 \(arguments.dropFirst().joined(separator: " ").prefix(200)) failed") }
    return (seconds(ContinuousClock.now - start), String(decoding: data, as: UTF8.self))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// GETs `path` on 127.0.0.1:`port` and reads the answer to its end without keeping it: the
/// seconds until the last byte, the bytes, and the answer's last 200 bytes.
func fetch(port: Int, path: String) throws -> (seconds: Double, bytes: Int, tail: String) {
    guard let fd = try? LoopbackSocket.connect(port: port) else { throw BenchError("connect to port \(port) failed") }
    defer { close(fd) }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
    let start = ContinuousClock.now
    guard write(fd, request, request.count) == request.count else { throw BenchError("write failed") }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var total = 0
    var tail: [UInt8] = []
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        total += count
        tail = count >= 200 ? Array(buffer[(count - 200)..<count]) : Array((tail + buffer[0..<count]).suffix(200))
    }
    return (seconds(ContinuousClock.now - start), total, String(decoding: tail, as: UTF8.self))
}

/// Resident memory of `pid` in bytes (VmRSS).
func resident(_ pid: pid_t) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

/// CPU seconds `pid` has used so far, user and system (`/proc/PID/stat`): the server's cost of a
/// request, steadier on a shared machine than the wall-clock time.
func cpuSeconds(_ pid: pid_t) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let end = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: end)...].split(separator: " ")
    // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

@main
struct RecorderBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "RecorderBenchmark",
        abstract: "Measures the OwnTracks Recorder API of the real whereabouts-sub against the sqlite3 command on the same file.",
        discussion: """
            Starts its own mosquitto and the given whereabouts-sub with a history file of about \
            10 million points (made once with sqlite3 and kept in --folder). Then, --rounds times \
            each: how many points per second GET /api/0/locations streams for the first device \
            (JSON and CSV), and how long GET /api/0/last takes for all --members devices. The \
            baseline, measured in the same run, is the plain sqlite3 command running the same \
            query on the same file; the ratio is the baseline's time over the server's (above 1 \
            when the server is faster). Also reports the server's resident memory and CPU while \
            it answers. Build both in release first: \
            swift build -c release --product whereabouts-sub --product RecorderBenchmark
            """)

    @OptionGroup var options: Options

    @MainActor
    func run() async throws {
        let options = self.options
        try FileManager.default.createDirectory(atPath: options.folder, withIntermediateDirectories: true)
        let file = (options.folder as NSString).appendingPathComponent("history.sqlite")
        let circles = (options.folder as NSString).appendingPathComponent("circles.yaml")
        try "circles:\n  - id: bench\n    members:\n      - user: u0000001\n        device: d\n".write(toFile: circles, atomically: true, encoding: .utf8)

        let broker = try await Broker.start()
        let port = try FreePort.find()
        let sub = try ChildProcess.spawn(options.binary, [
            "run", "--circles", circles, "--broker", "mqtt://127.0.0.1:\(broker.port)", "--client-id", "bench-recorder",
            "--state-file", "none", "--history", file, "--history-days", "0", "--http-port", "\(port)", "--log-level", "warning",
        ], logFile: URL(fileURLWithPath: options.folder).appendingPathComponent("whereabouts-sub.log"))
        let deadline = ContinuousClock.now + .seconds(60)
        while !FreePort.isAccepting(port) {
            guard ContinuousClock.now < deadline else { throw BenchError("whereabouts-sub did not open port \(port)") }
            try await Task.sleep(for: .milliseconds(50))
        }

        let now = Int(Date().timeIntervalSince1970)
        let stored = Int(try sqlite([file, "SELECT COUNT(*) FROM location"], keepOutput: true).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        if stored == 0 {
            let base = now - 2_000_000
            let fill = """
                PRAGMA busy_timeout = 10000;
                BEGIN;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(options.members))
                INSERT INTO member (id, user, device) SELECT i, printf('u%07d', i), 'd' FROM n;
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(options.one - 1))
                INSERT INTO location (member, tst, lat, lon, acc, alt, vel, batt, tid, t, m, received_at)
                SELECT 1, \(base) + i, 52.0 + i * 1e-6, -8.6 + i * 1e-6, 10, 50, 30, 80, 'u1', 'p', 1, \(base) + i FROM n;
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \((options.members - 1) * options.perMember - 1))
                INSERT INTO location (member, tst, lat, lon, acc, alt, vel, batt, tid, t, m, received_at)
                SELECT 2 + i / \(options.perMember), \(base) + (i % \(options.perMember)) * 60, 48.0 + (i % 1000) * 1e-5, 2.3, 12, 40, 0, 70, 'bx', 'u', 1, \(base) FROM n;
                COMMIT;
                """
            let made = try sqlite([file, fill])
            print(String(format: "made the history: %d points of %d devices in %.1f s", options.one + (options.members - 1) * options.perMember, options.members, made.seconds))
        }
        let total = try sqlite([file, "SELECT COUNT(*) FROM location"], keepOutput: true).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let size = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int ?? 0) / 1_048_576
        print("history: \(total) points, \(size) MB, \(options.members) devices; the first holds \(options.one)")

        // The same range and columns for both: the first device's whole history, oldest first.
        let range = "from=2000-01-01&to=2100-01-01"
        let columns = "l.tst, l.lat, l.lon, l.acc, l.alt, l.vac, l.vel, l.cog, l.batt, l.bs, l.tid, l.t, l.m, l.created_at, m.user, m.device"
        let select = "SELECT \(columns) FROM location l JOIN member m ON m.id = l.member WHERE m.user = 'u0000001' AND m.device = 'd' AND l.tst BETWEEN 946684800 AND 4102444800 ORDER BY l.tst LIMIT \(options.one)"
        // What whereabouts-sub asks SQLite for /api/0/last: the copy of each member's newest location
        // that its triggers keep (HistoryStore.swift, "v3-read-last-location"); and, for comparison, the
        // query it ran before that copy existed (each member's MAX(tst) looked up in `location`).
        let lastSQL = """
            SELECT \(columns) FROM member m CROSS JOIN last_location l ON l.member = m.id ORDER BY m.user, m.device
            """
        let lastSQLBefore = """
            SELECT \(columns) FROM member m JOIN location l ON l.member = m.id AND l.tst = (SELECT MAX(tst) FROM location WHERE member = m.id) ORDER BY m.user, m.device
            """

        var rows: [(String, [Double], [Double], String, [Double])] = []
        for (format, mode) in [("json", "-json"), ("csv", "-csv")] {
            var ours: [Double] = [], theirs: [Double] = [], cpu: [Double] = []
            var peak = 0
            let before = resident(sub.pid)
            for _ in 0..<options.rounds {
                let sampling = Task.detached {
                    var highest = 0
                    while !Task.isCancelled {
                        highest = max(highest, resident(sub.pid))
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                    return highest
                }
                let cpuBefore = cpuSeconds(sub.pid)
                let answer = try fetch(port: port, path: "/api/0/locations?user=u0000001&device=d&\(range)&limit=\(options.one)&format=\(format)")
                cpu.append(cpuSeconds(sub.pid) - cpuBefore)
                sampling.cancel()
                peak = max(peak, await sampling.value)
                if format == "json", !answer.tail.contains("\"count\":\(options.one)") { throw BenchError("the answer did not hold \(options.one) points: …\(answer.tail)") }
                ours.append(answer.seconds)
                theirs.append(try sqlite([mode, file, select]).seconds)
            }
            rows.append((format, ours, theirs, String(format: "server RSS %.0f MB before, %.0f MB at most while streaming", Double(before) / 1_048_576, Double(peak) / 1_048_576), cpu))
        }
        var lastOurs: [Double] = [], lastTheirs: [Double] = [], lastTheirsBefore: [Double] = []
        let lastBefore = resident(sub.pid)
        var lastPeak = 0
        var lastCPU: [Double] = []
        for _ in 0..<options.rounds {
            let cpuBefore = cpuSeconds(sub.pid)
            let answer = try fetch(port: port, path: "/api/0/last")
            lastCPU.append(cpuSeconds(sub.pid) - cpuBefore)
            guard answer.tail.hasSuffix("}]") else { throw BenchError("/api/0/last did not answer an array: …\(answer.tail)") }
            lastPeak = max(lastPeak, resident(sub.pid))
            lastOurs.append(answer.seconds)
            lastTheirs.append(try sqlite(["-json", file, lastSQL]).seconds)
            lastTheirsBefore.append(try sqlite(["-json", file, lastSQLBefore]).seconds)
        }

        print("")
        print("| query | whereabouts-sub (median of \(options.rounds)) | sqlite3 CLI, same query (median) | ratio |")
        print("|---|---|---|---|")
        for (format, ours, theirs, memory, cpu) in rows {
            let mine = Double(options.one) / median(ours), base = Double(options.one) / median(theirs)
            print(String(format: "| /api/0/locations format=%@, %d points | %.0f points/s (%.2f s) | %.0f points/s (%.2f s, -%@) | %.2f |",
                         format, options.one, mine, median(ours), base, median(theirs), format, mine / base))
            print(String(format: "|   %@; server CPU %.2f us per point (median) | | | |", memory, median(cpu) / Double(options.one) * 1e6))
        }
        print(String(format: "| /api/0/last, %d devices | %.1f ms (fastest %.1f, slowest %.1f) | %.0f ms | %.2f |",
                     options.members, median(lastOurs) * 1000, lastOurs.min()! * 1000, lastOurs.max()! * 1000, median(lastTheirs) * 1000,
                     median(lastTheirs) / median(lastOurs)))
        print(String(format: "|   the query before the last_location copy: sqlite3 %.0f ms; server RSS %.0f MB before, %.0f MB after; server CPU %.1f ms (median) | | | |",
                     median(lastTheirsBefore) * 1000, Double(lastBefore) / 1_048_576, Double(lastPeak) / 1_048_576, median(lastCPU) * 1000))

        await sub.stopGracefully()
        await broker.stop()
    }
}

extension ChildProcess {
    func stopGracefully() async {
        signal(SIGTERM)
        _ = try? await withTimeout(.seconds(10), "whereabouts-sub to stop") { await self.waitForExit() }
    }
}
