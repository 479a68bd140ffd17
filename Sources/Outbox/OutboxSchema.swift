import SQLiteSupport
import WhereaboutsCore

/// The outbox schema, step by step, on SQLite's C API.
///
/// The steps keep the names and the bookkeeping of GRDB's `DatabaseMigrator`, which wrote every
/// outbox file before (the table `grdb_migrations`, one row per applied step), so that a file
/// from any version opens with its rows, and a file this version wrote still opens in an older
/// one.
enum OutboxSchema {
    /// One schema step: its name in `grdb_migrations` and what it does, inside its transaction.
    struct Step: Sendable {
        var name: String
        var apply: @Sendable (OwnedSQLiteConnection) throws -> Void
    }

    /// Applies the steps the file lacks, in order, each in its own transaction with its row in
    /// `grdb_migrations` (as GRDB's migrator did).
    static func migrate(_ db: OwnedSQLiteConnection) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = Set(try SQLiteFile.appliedSteps(db))
        for step in steps where !applied.contains(step.name) {
            try db.inTransaction {
                try step.apply(db)
                try db.run("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(step.name)])
            }
        }
    }

    /// Version 1 files (written before the migrator was used) have the tables of the first step
    /// already, hence `IF NOT EXISTS` there.
    static let steps: [Step] = [
        Step(name: "v1-report-progress") { db in
            try db.execute("""
                CREATE TABLE IF NOT EXISTS report (
                    id INTEGER PRIMARY KEY,
                    topic TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    tst INTEGER NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE TABLE IF NOT EXISTS progress (newest_tst INTEGER NOT NULL);
                INSERT INTO progress (newest_tst) SELECT \(Int.min) WHERE NOT EXISTS (SELECT 1 FROM progress);
                PRAGMA user_version = 1;
                """)
        },
        Step(name: "v2-last-retained") { db in
            try db.execute("""
                CREATE TABLE last_retained (topic TEXT NOT NULL, payload BLOB NOT NULL, tst INTEGER NOT NULL);
                PRAGMA user_version = 2;
                """)
        },
        Step(name: "v3-commit-mark") { db in
            // The count of committed transactions that `<path>-mark` is compared with (CommitMark).
            try CommitMark.prepare(db, table: "progress")
            try db.execute("PRAGMA user_version = 3")
        },
        Step(name: "v4-receipts") { db in
            // Entries of an older file get sequence numbers in their order; the epoch is new
            // (16 hexadecimal digits, so it goes into the text as it is).
            let epoch = (0..<2).map { _ in hex8(UInt32.random(in: .min ... .max)) }.joined()
            try db.execute("""
                ALTER TABLE report ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE report ADD COLUMN acknowledged_at REAL;
                UPDATE report SET seq = id;
                CREATE INDEX report_acknowledged ON report (acknowledged_at) WHERE acknowledged_at IS NOT NULL;
                ALTER TABLE progress ADD COLUMN next_seq INTEGER NOT NULL DEFAULT 1;
                UPDATE progress SET next_seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM report);
                CREATE TABLE sequence (epoch TEXT NOT NULL);
                INSERT INTO sequence (epoch) VALUES ('\(epoch)');
                PRAGMA user_version = 4;
                """)
        },
    ]

}
