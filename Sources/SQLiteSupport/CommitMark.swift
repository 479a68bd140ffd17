#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A store's count of its committed transactions, kept twice: in the database (a row of
/// `table`, updated inside each transaction that changes something) and in a small file beside
/// it, `<file>-mark`, rewritten after each commit. The file survives what SQLite cannot see: a
/// deleted, damaged or replaced write-ahead log, an emptied or replaced database file. When the
/// database holds fewer commits than the file recorded, ``verify(_:)`` says how many are missing
/// and how many rows they had added.
///
/// What it cannot know: commits made while the mark file was missing or not writable, losses
/// when the mark file is deleted together with the log. Both stores fsync every commit
/// (`synchronous=FULL`), so a power loss takes no commit the mark could have seen.
/// The mark is written after the commit returns, so a kill -9 between the two leaves it one
/// behind, never ahead: a sound file is never reported as damaged.
///
/// One instance per open store; its file descriptor is used on the store's writer queue and
/// guarded by a `Mutex`. It works on SQLite's C API (``SQLiteDatabase``), so that the outbox (its
/// own connection) and the history (GRDB's) share this one implementation.
package final class CommitMark: Sendable {
    /// The mark file, `<database>-mark`.
    package let path: String
    private let table: String
    private let database: String
    private let descriptor: Mutex<Int32>

    /// The count in one place (the database or the mark file).
    package struct Count: Sendable, Equatable {
        /// Transactions that changed something.
        var transactions: Int
        /// Rows the store's writes said they added.
        package var rows: Int
    }

    /// Opens (creating it when missing) the mark file of the database at `database`, whose counts
    /// live in `table` (see ``prepare(_:table:)``).
    package init(database: String, table: String) {
        self.database = database
        self.table = table
        path = database + "-mark"
        descriptor = Mutex(open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644))
    }

    deinit {
        descriptor.withLock { fd in if fd >= 0 { close(fd) } }
    }

    /// Creates `table` with its one row when missing and adds the two count columns to it when
    /// missing (an existing table, such as the outbox's `progress`, keeps its other columns).
    /// Run it as a migration step.
    package static func prepare(_ db: some SQLiteDatabase, table: String) throws(SQLiteError) {
        let exists = try db.int("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)]) ?? 0 > 0
        if !exists {
            try db.execute("CREATE TABLE \(table) (committed_transactions INTEGER NOT NULL DEFAULT 0)")
        }
        let columns = Set(try db.rows("SELECT name FROM pragma_table_info(?)", [.text(table)]) { $0.text(0) ?? "" })
        if !columns.contains("committed_transactions") {
            try db.execute("ALTER TABLE \(table) ADD COLUMN committed_transactions INTEGER NOT NULL DEFAULT 0")
        }
        if !columns.contains("committed_rows") {
            try db.execute("ALTER TABLE \(table) ADD COLUMN committed_rows INTEGER NOT NULL DEFAULT 0")
        }
        if try db.int("SELECT COUNT(*) FROM \(table)") == 0 {
            try db.execute("INSERT INTO \(table) DEFAULT VALUES")
        }
    }

    /// Counts the transaction `db` is in, which added `rows` rows, and returns the count to give
    /// ``record(_:)`` once the transaction committed. Call it inside every write transaction that
    /// changed something, last.
    ///
    /// It first checks that the file is still the one at the store's path
    /// (``SQLiteFileCheck/checkInPlace(_:path:)``): a transaction into a deleted or replaced file
    /// is rolled back with an error instead of committed where nothing will read it.
    package func count(_ db: some SQLiteDatabase, rows: Int) throws(SQLiteError) -> Count {
        try SQLiteFileCheck.checkInPlace(db, path: database)
        try db.run(
            "UPDATE \(table) SET committed_transactions = committed_transactions + 1, committed_rows = committed_rows + ?",
            [.integer(Int64(rows))])
        return try Self.read(db, table: table)
    }

    /// Writes `count` (from ``count(_:rows:)``) into the mark file: call it after the transaction
    /// committed, never before.
    package func record(_ count: Count) { write(count) }

    /// Compares the database's count with the mark file's and then brings the file up to date.
    ///
    /// - Returns: ``SQLiteDamage/missingCommits(path:transactions:rows:)`` when the database holds
    ///   fewer commits than the file recorded; `nil` otherwise (also for a new or unreadable mark file).
    package func verify(_ db: some SQLiteDatabase) throws(SQLiteError) -> SQLiteDamage? {
        let stored = try Self.read(db, table: table)
        let marked = readFile()
        write(stored)
        guard let marked, marked.transactions > stored.transactions else { return nil }
        return .missingCommits(
            path: database, transactions: marked.transactions - stored.transactions, rows: max(0, marked.rows - stored.rows))
    }

    private static func read(_ db: some SQLiteDatabase, table: String) throws(SQLiteError) -> Count {
        try db.row("SELECT committed_transactions, committed_rows FROM \(table)") { row in
            Count(transactions: row.int(0) ?? 0, rows: row.int(1) ?? 0)
        } ?? Count(transactions: 0, rows: 0)
    }

    /// The mark file's text: `whereabouts-commit-mark <transactions> <rows>`, padded to a fixed
    /// width so that each write replaces the whole of it.
    private static func text(_ count: Count) -> [UInt8] {
        let line = Array("whereabouts-commit-mark \(count.transactions) \(count.rows)".utf8.prefix(63))
        return line + Array(repeating: UInt8(ascii: " "), count: 63 - line.count) + [UInt8(ascii: "\n")]
    }

    private func write(_ count: Count) {
        let bytes = Self.text(count)
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
    }

    private func readFile() -> Count? {
        let bytes = descriptor.withLock { fd -> [UInt8] in
            guard fd >= 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: 64)
            let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 64, 0) }
            return read > 0 ? Array(buffer.prefix(read)) : []
        }
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 3, fields[0] == "whereabouts-commit-mark",
              let transactions = Int(fields[1]), let rows = Int(fields[2]) else { return nil }
        return Count(transactions: transactions, rows: rows)
    }
}
