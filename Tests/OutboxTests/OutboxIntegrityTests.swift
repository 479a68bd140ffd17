import Foundation
import Logging
import Testing
import WhereaboutsTestSupport
@testable import Outbox
import SQLiteSupport

/// The outbox files a real `whereabouts-pub` leaves after a `kill -9` (no broker: every report
/// stays in the outbox), then damaged as an operator or a failing disk does it. Each loss must be
/// reported with the number of reports lost, and that number must be the truth: the reports
/// before the damage minus the reports after.
@Suite("Outbox integrity after kill -9 (real whereabouts-pub, real SQLite files)", .serialized,
       .enabled(if: TestPaths.builtExecutable(named: "whereabouts-pub") != nil))
struct OutboxIntegrityTests {
    /// Runs the publisher until its source ended, kills it, and returns the outbox path.
    private static func killedPublisher(in dir: TemporaryDirectory) async throws -> String {
        let outbox = dir.path("o.sqlite")
        let closed = try FreePort.find()
        let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx").path
        let log = dir.url.appendingPathComponent("pub.log")
        let executable = try #require(TestPaths.builtExecutable(named: "whereabouts-pub"))
        let process = try ChildProcess.spawn(executable.path, [
            "--source", "gpx:\(track)", "--replay-speed", "max", "--user", "alice", "--device", "phone",
            "--broker", "mqtt://127.0.0.1:\(closed)", "--outbox", outbox, "--drain-timeout", "1",
            "--power-supply-path", dir.path("no-sysfs"), "--policy", "interval", "--interval", "3",
        ], logFile: log)
        try await waitUntil("the position source ended", timeout: .seconds(60)) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("The position source ended")
        }
        process.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed publisher") { await process.waitForExit() }
        return outbox
    }

    /// The reports in a copy of the outbox files as the kill left them (opening the copy leaves
    /// the originals as they are), and the damage the copy reports (none expected).
    private static func reportsInCopy(of outbox: String, in dir: TemporaryDirectory) async throws -> (Int, [OutboxDamage]) {
        let copy = dir.path("copy.sqlite")
        for suffix in ["", "-wal", "-shm", "-mark"] where FileManager.default.fileExists(atPath: outbox + suffix) {
            try FileManager.default.copyItem(atPath: outbox + suffix, toPath: copy + suffix)
        }
        let opened = try Outbox(path: copy, logger: Logger(label: "test.copy"))
        return (opened.depth, opened.damage)
    }

    @Test("Each damage is a warning with the reports lost, and that count is the truth", arguments: SQLiteFileDamage.allCases)
    func damaged(_ damage: SQLiteFileDamage) async throws {
        let dir = try TemporaryDirectory()
        let outbox = try await Self.killedPublisher(in: dir)
        let wal = outbox + "-wal"
        let (before, copyDamage) = try await Self.reportsInCopy(of: outbox, in: dir)
        #expect(before > 60, "the drive makes 80 reports at a 3 s interval: \(before)")
        #expect(copyDamage.isEmpty, "a kill -9 alone is no damage: \(copyDamage)")
        let walBytes = (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        try #require(walBytes > 32, "the kill left a log with frames")

        try damage.inflict(onDatabaseAt: outbox)

        let (logger, logs) = Logger.capturing(label: "test.outbox")
        let reopened = try Outbox(path: outbox, logger: logger)
        let after = reopened.depth
        let warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.metadata["whereabouts.outbox.damage"].map { "\($0)" } ?? "")" }
        // The count the warning gives is exactly what is missing. Which commits are in the log
        // only depends on how the last ones fall against the outbox's checkpoint every 8 pages:
        // with a 2 s interval (120 reports) and the receipts' schema the last commit happened to
        // complete a checkpoint, leaving nothing to lose, so the drive runs at a 3 s interval
        // (80 reports, the last commits in the log only).
        #expect(after < before, "the damage loses commits: before \(before), after \(after)")
        #expect(reopened.lostReports == before - after, "reported \(reopened.lostReports), before \(before), after \(after): \(warnings)")
        #expect(warnings.contains { $0.contains("\(before - after) row(s) they added are lost") }, "\(warnings)")
        switch damage {
        case .emptiedWithLog:
            #expect(after == 0)
            #expect(warnings.contains { $0.contains("moved aside") && $0.contains(outbox) }, "\(warnings)")
            let aside = try #require(reopened.damage.compactMap { found -> String? in
                if case let .emptyFileWithLog(_, _, movedTo) = found { return movedTo } else { return nil }
            }.first)
            #expect(FileManager.default.fileExists(atPath: aside + "-wal"), "the log is kept for recovery")
        case .deletedLog:
            #expect(warnings.contains { $0.contains(wal) && $0.contains("is missing") }, "\(warnings)")
        case .damagedLog:
            #expect(warnings.contains { $0.contains(wal) && $0.contains("is damaged at frame 1") }, "\(warnings)")
        case .deletedLogAndIndex:
            break  // only the commit mark can tell
        }
        // A second start reports nothing more: the loss was said once.
        let again = try Outbox(path: dir.path("o.sqlite"), logger: Logger(label: "test.again"))
        #expect(again.damage.isEmpty, "\(again.damage)")
    }
}
