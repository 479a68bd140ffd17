internal import CSQLite

/// An SQLite connection opened and owned here, on SQLite's C API, for the publisher's outbox.
///
/// Hand-written rather than through GRDB (which the subscriber's history keeps using): GRDB
/// imports all of Foundation, and linking it into whereabouts-pub brought Foundation,
/// FoundationInternationalization and ICU's 34 MB data table with it (BENCHMARKS.md, "Binary
/// size": 57.7 MB stripped for a program printing `Date()` with Foundation against 13.5 MB with
/// FoundationEssentials). The outbox needs a dozen statements, so a thin layer is enough.
///
/// Statements are prepared once and kept for the connection's life (``statement(_:)``). Not
/// `Sendable`: its owner serialises every use (the outbox keeps it in a `Mutex`).
package final class OwnedSQLiteConnection: SQLiteDatabase {
    package let pointer: OpaquePointer
    /// Prepared statements by their SQL text; the set is fixed by the code that runs them.
    private var statements: [String: PreparedStatement] = [:]

    /// Opens (creating it when missing) the database at `path`, with extended result codes, and
    /// fails at once when the file is not an SQLite database (SQLite itself would only notice at
    /// the first read).
    package init(path: String) throws(SQLiteError) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(code: code, connection: connection)
            sqlite3_close_v2(connection)
            throw error
        }
        pointer = connection
        sqlite3_extended_result_codes(connection, 1)
        do {
            _ = try SQLiteHandle(connection).row("SELECT * FROM sqlite_master LIMIT 1") { _ in () }
        } catch {
            sqlite3_close_v2(connection)
            throw error
        }
    }

    deinit {
        statements.removeAll()  // finalized before the connection closes
        sqlite3_close_v2(pointer)
    }

    /// The statement for `sql`, prepared at its first use and kept.
    package func statement(_ sql: String) throws(SQLiteError) -> PreparedStatement {
        if let statement = statements[sql] { return statement }
        let statement = try PreparedStatement(connection: pointer, sql: sql, persistent: true)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` in a transaction (`BEGIN`, `COMMIT`); rolls it back when `body` or the commit
    /// throws, and rethrows.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }
}
