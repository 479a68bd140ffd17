import Foundation
import GRDB
import Logging
import Testing
import WhereaboutsTestSupport
@testable import Outbox

@Suite("Outbox")
struct OutboxTests {
    let logger = Logger(label: "test.outbox")

    private func payload(_ n: Int) -> Data { Data("{\"_type\":\"location\",\"tst\":\(n)}".utf8) }

    @Test("Appended entries come back oldest first, byte for byte, and leave only when removed")
    func fifo() async throws {
        let dir = try TemporaryDirectory()
        let outbox = try Outbox(path: dir.path("outbox.sqlite"), logger: logger)
        var ids: [Int64] = []
        for n in 1...5 {
            let result = try await outbox.append(topic: "owntracks/a/b", payload: payload(n), tst: 1000 + n)
            #expect(result.dropped == 0)
            #expect(result.depth == n)
            ids.append(result.id)
        }
        #expect(ids == ids.sorted())
        let first = try await outbox.oldest(limit: 3)
        #expect(first.map(\.tst) == [1001, 1002, 1003])
        #expect(first.map(\.payload) == [payload(1), payload(2), payload(3)])
        #expect(first.allSatisfy { $0.topic == "owntracks/a/b" })
        #expect(try await outbox.newestID() == ids.last)

        #expect(try await outbox.remove(ids: [ids[0], ids[1]]) == 2)
        #expect(outbox.depth == 3)
        #expect(try await outbox.oldest(limit: 10).map(\.tst) == [1003, 1004, 1005])
        #expect(try await outbox.remove(ids: [ids[0]]) == 0, "removing twice deletes nothing")
    }

    @Test("The retained entry acknowledged last is kept across reopening, for a broker that lost it")
    func lastRetained() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("outbox.sqlite")
        do {
            let outbox = try Outbox(path: path, logger: logger)
            #expect(try await outbox.lastRetained() == nil)
            let a = try await outbox.append(topic: "owntracks/a/b", payload: payload(1), tst: 1001)
            let b = try await outbox.append(topic: "owntracks/a/b", payload: payload(2), tst: 1002)
            let entries = try await outbox.oldest(limit: 2)
            try await outbox.remove(ids: [a.id, b.id], retained: entries[1])
        }
        let reopened = try Outbox(path: path, logger: logger)
        let last = try #require(try await reopened.lastRetained())
        #expect(last.tst == 1002 && last.payload == payload(2) && last.topic == "owntracks/a/b")
        #expect(reopened.depth == 0)
    }

    /// Writes an outbox as version 1 wrote it (before the migrator and incremental vacuum), with
    /// one report of `tst`, and closes it.
    static func writeVersion1Outbox(at path: String, tst: Int) async throws {
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(sql: """
                CREATE TABLE report (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload BLOB NOT NULL,
                                     tst INTEGER NOT NULL, created_at REAL NOT NULL);
                CREATE TABLE progress (newest_tst INTEGER NOT NULL);
                INSERT INTO progress (newest_tst) VALUES (\(tst));
                INSERT INTO report (topic, payload, tst, created_at) VALUES ('t', x'7b7d', \(tst), 0);
                PRAGMA application_id = \(Outbox.applicationID);
                PRAGMA user_version = 1;
                """)
        }
        try old.close()
    }

    @Test("A version 1 outbox (before the migrator) is migrated and keeps its entries")
    func migratesVersion1() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("v1.sqlite")
        try await Self.writeVersion1Outbox(at: path, tst: 1001)
        let outbox = try Outbox(path: path, logger: logger)
        #expect(outbox.depth == 1)
        #expect(try await outbox.newestCommittedTST() == 1001)
        #expect(try await outbox.lastRetained() == nil)
        #expect(outbox.damage.isEmpty)
    }

    @Test("What a killed process committed is there after reopening, in order")
    func reopenAfterCrash() async throws {
        let dir = try TemporaryDirectory()
        let live = dir.path("live.sqlite")
        let outbox = try Outbox(path: live, logger: logger)
        for n in 1...50 { _ = try await outbox.append(topic: "t", payload: payload(n), tst: n) }
        try await outbox.remove(ids: try await outbox.oldest(limit: 10).map(\.id))
        // A kill -9 leaves exactly the files on disk while the connection is still open: the main
        // file and its write-ahead log, with no checkpoint. Copy them as they are and open the copy.
        let crashed = dir.path("crashed.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: live + suffix) {
            try FileManager.default.copyItem(atPath: live + suffix, toPath: crashed + suffix)
        }
        #expect(FileManager.default.fileExists(atPath: crashed + "-wal"), "commits are still in the log")
        let reopened = try Outbox(path: crashed, logger: logger)
        #expect(reopened.depth == 40)
        let entries = try await reopened.oldest(limit: 100)
        #expect(entries.map(\.tst) == Array(11...50))
        #expect(entries.last?.payload == payload(50))
        // New entries go after the old ones.
        let next = try await reopened.append(topic: "t", payload: payload(51), tst: 51)
        #expect(next.id > entries.last!.id)
    }

    @Test("The cap drops the oldest entries and counts them")
    func cap() async throws {
        let dir = try TemporaryDirectory()
        let outbox = try Outbox(path: dir.path("o.sqlite"), maxEntries: 3, logger: logger)
        var dropped = 0
        for n in 1...7 { dropped += try await outbox.append(topic: "t", payload: payload(n), tst: n).dropped }
        #expect(dropped == 4)
        #expect(outbox.depth == 3)
        #expect(try await outbox.oldest(limit: 10).map(\.tst) == [5, 6, 7])
    }

    @Test("A file that is not SQLite is refused with a clear error")
    func corruptFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("garbage.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect(throws: OutboxError.self) { try Outbox(path: path, logger: logger) }
        do {
            _ = try Outbox(path: path, logger: logger)
        } catch {
            guard case .notADatabase(let p, _) = error else {
                Issue.record("expected notADatabase, got \(error)"); return
            }
            #expect(p == path)
            #expect(error.description.contains("not an SQLite database"))
        }
        // Nothing was written over the user's file.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 0x5A, count: 8192))
    }

    @Test("Another program's SQLite database is refused, not written into")
    func foreignDatabase() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("other.sqlite")
        // Another program's database: a table of its own, no application id.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes (x)") }
        do {
            _ = try Outbox(path: path, logger: logger)
            Issue.record("opening a foreign database succeeded")
        } catch {
            #expect(error == .foreignDatabase(path: path, applicationID: 0))
            #expect(error.description.contains("another program"))
        }
    }

    @Test("A cap below one row is refused")
    func invalidCap() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: OutboxError.invalidCap(0)) { try Outbox(path: dir.path("o.sqlite"), maxEntries: 0, logger: logger) }
    }

    @Test("A missing folder is created")
    func createsFolder() async throws {
        let dir = try TemporaryDirectory()
        let outbox = try Outbox(path: dir.path("state/whereabouts/outbox.sqlite"), logger: logger)
        _ = try await outbox.append(topic: "t", payload: payload(1), tst: 1)
        #expect(FileManager.default.fileExists(atPath: dir.path("state/whereabouts/outbox.sqlite")))
    }
}

@Suite("Outbox progress")
struct OutboxProgressTests {
    @Test("The newest committed tst survives deletes and reopening")
    func newestCommitted() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("o.sqlite")
        let outbox = try Outbox(path: path, logger: Logger(label: "test"))
        #expect(try await outbox.newestCommittedTST() == nil)
        var ids: [Int64] = []
        for tst in [100, 105, 103] { ids.append(try await outbox.append(topic: "t", payload: Data(), tst: tst).id) }
        try await outbox.remove(ids: ids)
        #expect(outbox.depth == 0)
        #expect(try await outbox.newestCommittedTST() == 105)
        let reopened = try Outbox(path: path, logger: Logger(label: "test"))
        #expect(try await reopened.newestCommittedTST() == 105)
    }
}
