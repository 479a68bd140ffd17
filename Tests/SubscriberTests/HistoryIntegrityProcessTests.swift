import Foundation
import GRDB
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// The history files a real `whereabouts-sub` leaves after a `kill -9`, damaged as an operator
/// or a failing disk does it (issue 24: 3,000 rows became 1, 1,944 or 0 while the log said
/// "History opened."). The restarted subscriber must report the loss with the number of rows
/// lost, and that number must be the truth.
@Suite("whereabouts-sub process: damaged history files", .serialized, .enabled(if: HistoryProcessTests.executable != nil))
struct HistoryIntegrityProcessTests {
    static let dave = MemberID(user: "Dave", device: "handheld")

    /// Locations in the file, read without the store (no mark written, nothing checked).
    static func rowsOnDisk(_ path: String) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM location") ?? 0 }
    }

    @Test("A damaged, deleted or orphaned log is reported at restart with the rows lost, and the count is the truth", arguments: SQLiteFileDamage.allCases)
    func damaged(_ damage: SQLiteFileDamage) async throws {
        var rig = try await HistoryProcessRig.start(clientID: "sub-damage", prefix: "history-damage")
        let broker = rig.broker, directory = rig.directory, path = rig.historyPath
        let publisher = try await MQTTClient.connected(to: broker)
        let now = Int(Date().timeIntervalSince1970)
        var sent = 0
        func burst(_ count: Int) async throws {
            for _ in 0..<count {
                sent += 1
                try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: now - 10_000 + sent).utf8),
                                            qos: .atLeastOnce, retain: false)
            }
            let expected = sent
            try await waitUntil("\(expected) rows committed", timeout: .seconds(20)) { (try? Self.rowsOnDisk(path)) == expected }
        }

        // A first run stopped cleanly: its 100 rows are checkpointed into the main file.
        let (first, _) = try await rig.spawnSubscribed("first")
        try await burst(100)
        first.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(20), "the first run to stop") { await first.waitForExit() } == 0)
        // A second run killed after five commits: those are in the log only.
        let (second, _) = try await rig.spawnSubscribed("second")
        for _ in 0..<5 { try await burst(100) }
        second.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await second.waitForExit() }

        // The files as the kill left them, copied and opened: all 600 rows, no damage reported.
        let copy = directory.appendingPathComponent("copy.sqlite").path
        for suffix in ["", "-wal", "-shm", "-mark"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        do {
            let intact = try HistoryStore(path: copy, logger: Build.quietLogger)
            #expect(try await intact.locations(of: Self.dave, from: 0, to: .max, limit: 10_000).count == 600)
            #expect(intact.damage.isEmpty, "a kill -9 alone is no damage: \(intact.damage)")
        }

        try damage.inflict(onDatabaseAt: path)

        let port = try FreePort.find()
        rig.arguments += ["--http-port", "\(port)"]
        let (third, thirdLog) = try await rig.spawnSubscribed("third")
        try await waitUntil("the dashboard") { ((try? String(contentsOf: thirdLog, encoding: .utf8)) ?? "").contains("Dashboard listening") }
        let metrics = try await HistoryFullDiskProcessTests.get(port, "/metrics").1
        third.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(20), "the third run to stop") { await third.waitForExit() } == 0)
        let log = (try? String(contentsOf: thirdLog, encoding: .utf8)) ?? ""
        let after = try Self.rowsOnDisk(path)
        let expected = damage == .emptiedWithLog ? 0 : 100
        #expect(after == expected, "rows left after \(damage): \(after)")
        let lines = log.split(separator: "\n").filter { $0.contains("History damaged") }
        #expect(lines.contains { $0.contains("\(600 - after) row(s) they added are lost") }, "log:\n\(log)")
        switch damage {
        case .emptiedWithLog: #expect(lines.contains { $0.contains("moved aside") }, "log:\n\(log)")
        case .deletedLog: #expect(lines.contains { $0.contains("is missing") }, "log:\n\(log)")
        case .damagedLog: #expect(lines.contains { $0.contains("is damaged at frame 1") }, "log:\n\(log)")
        case .deletedLogAndIndex: break
        }
        #expect(metrics.contains("whereabouts_sub_history_rows_total{outcome=\"lost\"} \(600 - after)"), "metrics:\n\(metrics)")
        #expect(log.contains("whereabouts.history.lost=\(600 - after)") || log.contains("\"whereabouts.history.lost\":\"\(600 - after)\""), "log:\n\(log)")
        await publisher.disconnect()
        await broker.stop()
    }

    @Test("A history written by a newer subscriber is refused with a message naming the file and what to do")
    func newerFileRefused() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("history.sqlite")
        do { _ = try HistoryStore(path: path, logger: Build.quietLogger) }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try queue.close()
        #expect {
            _ = try HistoryStore(path: path, logger: Build.quietLogger)
        } throws: { error in
            guard let error = error as? HistoryError, case let .newerSchema(found, _) = error else { return false }
            return found == path && error.description.contains("newer whereabouts-sub") && error.description.contains("--history")
        }
    }
}
