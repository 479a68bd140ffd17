internal import CSQLite

/// A failure SQLite reported through its C API: the extended result code and SQLite's message.
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's extended result code (`sqlite3_extended_errcode`).
    package var code: Int32
    /// SQLite's message (`sqlite3_errmsg`), or one of ours naming what failed.
    package var message: String

    /// Creates an error with `code` and `message`.
    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The error `connection` holds after a call returned `code`.
    init(code: Int32, connection: OpaquePointer?) {
        self.code = connection.map { sqlite3_extended_errcode($0) } ?? code
        if self.code == SQLITE_OK || self.code == SQLITE_ROW || self.code == SQLITE_DONE { self.code = code }
        self.message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
    }

    /// `SQLITE_READONLY_DBMOVED`: the file was deleted or replaced while it was open.
    /// (`SQLITE_READONLY | (4 << 8)`: a macro Swift does not import.)
    package static let fileMovedCode: Int32 = SQLITE_READONLY | (4 << 8)

    package var description: String { "SQLite error \(code): \(message)" }
}

/// An error that carries an SQLite result code: ``SQLiteError``, and the error type of a
/// library over SQLite (the subscriber's history gives GRDB's `DatabaseError` this conformance),
/// so that ``SQLiteFailure`` sorts both alike.
package protocol SQLiteResultError: Error {
    /// SQLite's result code, primary or extended.
    var sqliteResultCode: Int32 { get }
    /// SQLite's message, if any.
    var sqliteMessage: String? { get }
}

extension SQLiteError: SQLiteResultError {
    package var sqliteResultCode: Int32 { code }
    package var sqliteMessage: String? { message }
}
