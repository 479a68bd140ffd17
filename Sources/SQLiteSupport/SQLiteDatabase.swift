internal import CSQLite

/// What the stores run SQL through: an open SQLite connection, either the outbox's own
/// ``OwnedSQLiteConnection`` (which keeps its statements prepared for its life) or a view of a
/// connection another library opened (``SQLiteHandle``: the subscriber's history hands over
/// GRDB's `sqliteConnection`), so that one implementation of the file checks and the commit mark
/// (``CommitMark``, ``SQLiteFile``, ``SQLiteFileCheck``) serves both.
package protocol SQLiteDatabase {
    /// The `sqlite3 *` handle.
    var pointer: OpaquePointer { get }
    /// A prepared statement for `sql` (one statement), ready to bind.
    func statement(_ sql: String) throws(SQLiteError) -> PreparedStatement
}

extension SQLiteDatabase {
    /// Runs `sql` (one or more statements, no parameters): pragmas, schema steps, `BEGIN`/`COMMIT`.
    package func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(pointer, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: pointer) }
    }

    /// Runs the one statement `sql` with `arguments` to its end; returns the rows it changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.finish() }
        while try statement.step() {}
        return Int(sqlite3_changes64(pointer))
    }

    /// Runs the query `sql` with `arguments` and reads each row with `read`.
    package func rows<T>(_ sql: String, _ arguments: [SQLiteValue] = [], _ read: (PreparedStatement) -> T) throws(SQLiteError) -> [T] {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.finish() }
        var rows: [T] = []
        while try statement.step() { rows.append(read(statement)) }
        return rows
    }

    /// The first row of the query `sql` read with `read`, or `nil` when it has none.
    package func row<T>(_ sql: String, _ arguments: [SQLiteValue] = [], _ read: (PreparedStatement) -> T) throws(SQLiteError) -> T? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.finish() }
        return try statement.step() ? read(statement) : nil
    }

    /// The first column of the first row of `sql` as an integer; `nil` when there is no row or it is NULL.
    package func int64(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
        try row(sql, arguments) { $0.int64(0) } ?? nil
    }

    /// The first column of the first row of `sql` as an integer; `nil` when there is no row or it is NULL.
    package func int(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> Int? {
        try int64(sql, arguments).map { Int($0) }
    }

    /// Rows changed, inserted or deleted since the connection opened (`sqlite3_total_changes64`).
    package var totalChanges: Int64 { sqlite3_total_changes64(pointer) }
    /// The row id of the last insert (`sqlite3_last_insert_rowid`).
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(pointer) }
    /// Whether a transaction is open (`sqlite3_get_autocommit` is 0).
    package var isInTransaction: Bool { sqlite3_get_autocommit(pointer) == 0 }

    /// Checkpoints the write-ahead log into the file and truncates the log to zero bytes
    /// (`SQLITE_CHECKPOINT_TRUNCATE`).
    package func checkpointTruncating() throws(SQLiteError) {
        let code = sqlite3_wal_checkpoint_v2(pointer, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: pointer) }
    }

    /// Whether the main database file this connection has open is no longer the file at its path
    /// (deleted, renamed, or replaced by another file): SQLite's own test, `SQLITE_FCNTL_HAS_MOVED`
    /// (the unix VFS compares the open file's inode with the one the path names now).
    package var fileHasMoved: Bool {
        var moved: Int32 = 0
        let code = sqlite3_file_control(pointer, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return code == SQLITE_OK && moved != 0
    }
}

/// A connection another library opened and owns (GRDB's `Database.sqliteConnection` for the
/// subscriber's history), seen through ``SQLiteDatabase``. Its statements are prepared for each
/// use and released after it.
package struct SQLiteHandle: SQLiteDatabase {
    package let pointer: OpaquePointer

    /// A view of the open connection `pointer`; the caller keeps it open while the view is used.
    package init(_ pointer: OpaquePointer) { self.pointer = pointer }

    package func statement(_ sql: String) throws(SQLiteError) -> PreparedStatement {
        try PreparedStatement(connection: pointer, sql: sql, persistent: false)
    }
}
