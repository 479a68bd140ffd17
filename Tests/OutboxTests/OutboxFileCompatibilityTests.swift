import Foundation
import Logging
import Testing
import WhereaboutsTestSupport
@testable import Outbox

/// The outbox moved from GRDB to SQLite's C API: files written by the GRDB-based versions must
/// open with everything in them. The file is written here by the sqlite3 command, statement for
/// statement as GRDB's migrator wrote version 4 (its `grdb_migrations` table included).
@Suite("Outbox file compatibility")
struct OutboxFileCompatibilityTests {
    let logger = Logger(label: "test.outbox")

    @Test("An outbox written by the GRDB-based version opens with its reports, sequence, epoch, retained report and commit count")
    func opensGRDBFile() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("outbox.sqlite")
        try await Self.sqlite3(path, """
            PRAGMA auto_vacuum = INCREMENTAL;
            PRAGMA journal_mode = WAL;
            PRAGMA application_id = \(Outbox.applicationID);
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            CREATE TABLE report (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload BLOB NOT NULL, tst INTEGER NOT NULL, created_at REAL NOT NULL);
            CREATE TABLE progress (newest_tst INTEGER NOT NULL);
            INSERT INTO progress (newest_tst) VALUES (\(Int.min));
            CREATE TABLE last_retained (topic TEXT NOT NULL, payload BLOB NOT NULL, tst INTEGER NOT NULL);
            ALTER TABLE progress ADD COLUMN committed_transactions INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE progress ADD COLUMN committed_rows INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE report ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE report ADD COLUMN acknowledged_at REAL;
            CREATE INDEX report_acknowledged ON report (acknowledged_at) WHERE acknowledged_at IS NOT NULL;
            ALTER TABLE progress ADD COLUMN next_seq INTEGER NOT NULL DEFAULT 1;
            CREATE TABLE sequence (epoch TEXT NOT NULL);
            INSERT INTO sequence (epoch) VALUES ('0123456789abcdef');
            INSERT INTO grdb_migrations VALUES ('v1-report-progress'), ('v2-last-retained'), ('v3-commit-mark'), ('v4-receipts');
            PRAGMA user_version = 4;
            INSERT INTO report (topic, payload, tst, created_at, seq, acknowledged_at) VALUES
                ('owntracks/a/b', CAST('{"tst":1001}' AS BLOB), 1001, 1700000001.25, 7, NULL),
                ('owntracks/a/b/event', CAST('{"tst":1002}' AS BLOB), 1002, 1700000002.5, 8, 1700000003.0),
                ('owntracks/a/b', CAST('{"tst":1003}' AS BLOB), 1003, 1700000003.75, 9, NULL);
            UPDATE progress SET newest_tst = 1003, next_seq = 10, committed_transactions = 9, committed_rows = 9;
            INSERT INTO last_retained VALUES ('owntracks/a/b', CAST('{"tst":1000}' AS BLOB), 1000);
            """)
        try Data("whereabouts-commit-mark 9 9".padding(toLength: 63, withPad: " ", startingAt: 0).appending("\n").utf8)
            .write(to: URL(fileURLWithPath: path + "-mark"))

        let outbox = try Outbox(path: path, logger: logger)
        #expect(outbox.damage.isEmpty, "\(outbox.damage)")
        #expect(outbox.depth == 3)
        #expect(outbox.epoch == "0123456789abcdef")
        let waiting = try await outbox.oldest(limit: 10)
        #expect(waiting.map(\.tst) == [1001, 1003], "the acknowledged entry waits for its receipt, out of the send queue")
        #expect(waiting.map(\.seq) == [7, 9])
        #expect(waiting.map(\.payload) == [Data(#"{"tst":1001}"#.utf8), Data(#"{"tst":1003}"#.utf8)])
        #expect(waiting.map(\.createdAt.timeIntervalSince1970) == [1700000001.25, 1700000003.75])
        #expect(try await outbox.lastRetained()?.payload == Data(#"{"tst":1000}"#.utf8))
        let confirmation = try await outbox.confirmation()
        #expect(confirmation.settled == 7 && confirmation.acknowledged == 1)
        #expect(confirmation.oldestAcknowledged?.timeIntervalSince1970 == 1700000003.0)
        let appended = try await outbox.append(topic: "owntracks/a/b", payload: Data("x".utf8), tst: 1004)
        #expect(appended.depth == 4)
        #expect(try await outbox.oldest(limit: 10).last?.seq == 10, "the sequence goes on where the file left it")
        #expect(try await outbox.removeConfirmed(through: 8) == 2)

        // The file keeps GRDB's bookkeeping, so that a GRDB-based version still opens it, and the
        // commit mark agrees with it.
        #expect(try await Self.sqlite3(path, "SELECT group_concat(identifier, ',') FROM grdb_migrations")
            == "v1-report-progress,v2-last-retained,v3-commit-mark,v4-receipts")
        #expect(try await Self.sqlite3(path, "PRAGMA user_version") == "4")
        #expect(try await Self.sqlite3(path, "SELECT committed_transactions || ' ' || committed_rows FROM progress") == "11 10")
        #expect(try String(contentsOfFile: path + "-mark", encoding: .utf8).hasPrefix("whereabouts-commit-mark 11 10 "))
    }

    @Test("Every commit is fsynced: the connection runs synchronous=FULL in WAL mode")
    func synchronousFull() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("outbox.sqlite")
        let outbox = try Outbox(path: path, logger: logger)
        #expect(try await outbox.synchronousSetting() == 2, "2 is FULL; GRDB's WAL set-up had left it at NORMAL (1)")
        #expect(try await Self.sqlite3(path, "PRAGMA journal_mode") == "wal")
    }

    /// Runs Debian's sqlite3 command on `path` and returns what it printed, trimmed.
    @discardableResult
    static func sqlite3(_ path: String, _ sql: String) async throws -> String {
        let result = try await ToolRun.run("/usr/bin/sqlite3", [path, sql])
        #expect(result.status == 0, "sqlite3 failed on: \(sql): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
