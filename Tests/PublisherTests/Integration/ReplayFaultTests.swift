import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// The real whereabouts-pub binary replaying faulty recordings: a fix from the future in a past
/// track, a track wholly in the future, and a replay restarted after a kill.
@Suite("Publisher replaying faulty recordings", .serialized, .enabled(if: PublisherProcess.executable != nil))
struct ReplayFaultTests {
    static let fixture = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx")

    /// The drive fixture (2023) with its `<time>` years replaced, or one point dated `outlier`.
    func track(in dir: URL, name: String, replacingYear: String? = nil, outlierAt index: Int? = nil, outlier: String = "2030-01-01T00:00:00Z") throws -> URL {
        var lines = try String(contentsOf: Self.fixture, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let replacingYear {
            lines = lines.map { $0.replacingOccurrences(of: "<time>2023-", with: "<time>\(replacingYear)-") }
        }
        if let index {
            let points = lines.indices.filter { lines[$0].hasPrefix("<trkpt") }
            let at = points[index]
            let time = try #require(lines[at].range(of: #"<time>[^<]*</time>"#, options: .regularExpression))
            lines[at].replaceSubrange(time, with: "<time>\(outlier)</time>")
        }
        let url = dir.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func arguments(track: URL, port: Int, outbox: URL, speed: String, metricsPort: Int? = nil) -> [String] {
        ["--source", "gpx:\(track.path)", "--replay-speed", speed, "--user", "alice", "--device", "phone",
         "--broker", "mqtt://127.0.0.1:\(port)", "--outbox", outbox.path, "--log-level", "debug",
         "--power-supply-path", outbox.deletingLastPathComponent().appendingPathComponent("no-sysfs").path,
         "--policy", "interval", "--interval", "2"] + (metricsPort.map { ["--metrics-port", "\($0)"] } ?? [])
    }

    @Test("One fix dated 2030 in a past recording is rejected as future alone; a 100x replay still finishes in time")
    func singleFutureFix() async throws {
        let broker = try await Broker.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-future-fix")
        let clean = try track(in: dir, name: "clean.gpx")
        let faulty = try track(in: dir, name: "faulty.gpx", outlierAt: 100)
        // The clean track's run gives the reports to expect (the outlier point is simply absent).
        let reference = try PublisherProcess(arguments: arguments(track: clean, port: broker.port, outbox: dir.appendingPathComponent("a.sqlite"), speed: "max"),
                                             logFile: dir.appendingPathComponent("clean.log"))
        #expect(try await reference.waitForExit(timeout: .seconds(60)) == 0)
        let expected = loggedTimestamps(in: reference.log, of: "Report committed.")
        // 240 s of recording at 100x: 2.4 s; the old code waited for 2030.
        let started = ContinuousClock.now
        let pub = try PublisherProcess(arguments: arguments(track: faulty, port: broker.port, outbox: dir.appendingPathComponent("b.sqlite"), speed: "100"),
                                       logFile: dir.appendingPathComponent("faulty.log"))
        #expect(try await pub.waitForExit(timeout: .seconds(60)) == 0, "\(pub.log.suffix(2000))")
        #expect(ContinuousClock.now - started < .seconds(30))
        let log = pub.log
        let rejected = log.split(separator: "\n").filter { $0.contains("Fix dropped") }
        #expect(rejected.count == 1 && rejected.allSatisfy { $0.contains("whereabouts.reason=future") }, "\(rejected)")
        let reported = loggedTimestamps(in: log, of: "Report committed.")
        // Without the fix at index 100 the interval policy's later reports may fall one second
        // later, but their number stays (the old code: 40 of 123 in the issue's recording).
        #expect(abs(reported.count - expected.count) <= 1, "\(reported.count) reports, \(expected.count) without the outlier")
        await broker.stop()
    }

    @Test("A recording wholly in the future is refused with a clear error")
    func recordingInFuture() async throws {
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-future-track")
        let future = try track(in: dir, name: "future.gpx", replacingYear: "2099")
        let pub = try PublisherProcess(arguments: arguments(track: future, port: try FreePort.find(), outbox: dir.appendingPathComponent("o.sqlite"), speed: "max"),
                                       logFile: dir.appendingPathComponent("pub.log"))
        let status = try await pub.waitForExit(timeout: .seconds(30))
        #expect(status != 0)
        #expect(pub.log.contains("The recording starts at 2099-"), "\(pub.log.suffix(1500))")
        #expect(pub.log.contains("later than the current time"))
        #expect(!pub.log.contains("Report committed."))
    }

    @Test("A replay killed partway resumes at once after a restart instead of waiting through the part already sent")
    func resumesAtOnce() async throws {
        let broker = try await Broker.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-resume")
        let outbox = dir.appendingPathComponent("o.sqlite")
        let log = dir.appendingPathComponent("pub.log")
        // Real time: 240 s of recording. Kill it after some reports.
        let first = try PublisherProcess(arguments: arguments(track: URL(fileURLWithPath: Self.fixture.path), port: broker.port, outbox: outbox, speed: "2"), logFile: log)
        try await first.waitForLogCount("Report committed.", atLeast: 15, timeout: .seconds(60))
        first.signal(SIGKILL)
        _ = try await first.waitForExit(timeout: .seconds(10))
        let before = loggedTimestamps(in: first.log, of: "Report committed.")
        let newest = try #require(before.max())
        let second = try PublisherProcess(arguments: arguments(track: URL(fileURLWithPath: Self.fixture.path), port: broker.port, outbox: outbox, speed: "2"), logFile: log)
        let restarted = ContinuousClock.now
        try await second.waitForLog("Resumed the recording after the last committed report.", timeout: .seconds(30))
        // The next report is 2 recorded seconds after the newest: 1 s at 2x, not the minutes already replayed.
        try await waitUntil("a new report after the restart", timeout: .seconds(30)) {
            loggedTimestamps(in: second.log, of: "Report committed.").contains { $0 > newest }
        }
        let took = ContinuousClock.now - restarted
        let skippedPart = Double(newest - 1_700_000_000) / 2
        #expect(took < .seconds(max(3, skippedPart / 2)), "first new report \(took) after the restart; the old code waited ~\(skippedPart) s")
        second.signal(SIGTERM)
        _ = try await second.waitForExit(timeout: .seconds(20))
        await broker.stop()
    }
}
