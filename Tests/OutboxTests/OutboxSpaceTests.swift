import Foundation
import GRDB
import Logging
import Testing
import WhereaboutsTestSupport
@testable import Outbox

/// What the outbox gives back to the file system, and what it finds wrong in its files, with
/// real SQLite files. (The full file system itself is made real in `PublisherFaultTests`, on a
/// small tmpfs.)
@Suite("Outbox space and damage")
struct OutboxSpaceTests {
    let logger = Logger(label: "test.outbox")

    private func bytesOnDisk(_ path: String) -> Int {
        ["", "-wal"].reduce(0) { sum, suffix in
            sum + (((try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? Int) ?? 0)
        }
    }

    @Test("A drained backlog gives its space back: outbox file and log shrink to a few pages")
    func drainedBacklogGivesSpaceBack() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("outbox.sqlite")
        let outbox = try Outbox(path: path, logger: logger)
        let payload = Data(repeating: UInt8(ascii: "x"), count: 600)
        for n in 1...2_000 { _ = try await outbox.append(topic: "t", payload: payload, tst: n) }
        let full = bytesOnDisk(path)
        #expect(full > 1_200_000, "2,000 reports of 600 bytes take room: \(full) bytes")
        while case let batch = try await outbox.oldest(limit: 100), !batch.isEmpty {
            try await outbox.remove(ids: batch.map(\.id))
        }
        let drained = bytesOnDisk(path)
        #expect(drained < 100_000, "after the drain the files hold \(drained) bytes (were \(full))")
        // And the outbox still works as before.
        _ = try await outbox.append(topic: "t", payload: payload, tst: 3_000)
        #expect(try await outbox.oldest(limit: 5).map(\.tst) == [3_000])
    }

    @Test("An outbox written before incremental vacuum is rewritten once on opening and keeps its entries")
    func olderFileIsRewritten() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("old.sqlite")
        try await OutboxTests.writeVersion1Outbox(at: path, tst: 7)
        let before = try DatabaseQueue(path: path)
        #expect(try await before.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 0)
        try before.close()
        let outbox = try Outbox(path: path, logger: logger)
        #expect(try await outbox.oldest(limit: 5).map(\.tst) == [7])
        let check = try DatabaseQueue(path: path)
        #expect(try await check.read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") } == 2, "2 is INCREMENTAL")
        try check.close()
    }

    @Test("A write-ahead log damaged in the middle is reported with the frame and the commits lost; what came before is kept")
    func damagedLogIsReported() async throws {
        let dir = try TemporaryDirectory()
        let live = dir.path("live.sqlite")
        do { _ = try Outbox(path: live, logger: logger) }  // the schema, then closed
        // A long log as a publisher that was killed leaves it: 30 commits, none checkpointed.
        let writer = try DatabaseQueue(path: live)
        try await writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        for n in 1...30 {
            try await writer.write { db in
                try db.execute(
                    sql: "INSERT INTO report (topic, payload, tst, created_at) VALUES ('t', ?, ?, 0)",
                    arguments: [Data(repeating: UInt8(n), count: 300), n])
            }
        }
        let crashed = dir.path("crashed.sqlite")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: live + suffix, toPath: crashed + suffix)
        }
        try writer.close()
        // One flipped byte in the page of a frame in the middle of the log.
        let wal = crashed + "-wal"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: wal)))
        let pageSize = Int(bytes[8]) << 24 | Int(bytes[9]) << 16 | Int(bytes[10]) << 8 | Int(bytes[11])
        let frames = (bytes.count - 32) / (24 + pageSize)
        try #require(frames >= 30, "one frame or more per commit: \(frames)")
        let middle = frames / 2
        bytes[32 + middle * (24 + pageSize) + 24 + pageSize / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: wal))

        let reopened = try Outbox(path: crashed, logger: logger)
        guard case let .damagedLog(path, frame, total, lostCommits) = try #require(reopened.damage.first) else {
            Issue.record("expected a damaged log, got \(reopened.damage)")
            return
        }
        #expect(path == wal)
        #expect(frame == middle + 1)
        #expect(total == frames)
        #expect(lostCommits >= 10, "about half the 30 commits come after the damage: \(lostCommits)")
        // SQLite keeps the commits before the damaged frame; those are still there, in order.
        let kept = try await reopened.oldest(limit: 100).map(\.tst)
        #expect(kept == Array(1...kept.count), "the commits before the damage, in order: \(kept)")
        #expect(kept.count == 30 - lostCommits, "kept \(kept.count), lost \(lostCommits)")
    }
}
