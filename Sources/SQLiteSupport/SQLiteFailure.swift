internal import CSQLite

/// A failure while using a SQLite file, sorted the way the project's stores (the publisher's
/// outbox, the subscriber's history) tell an operator about it: the file is not a database or is
/// damaged, its file system is full, or something else, with SQLite's own message.
enum SQLiteFailure: Sendable, Equatable {
    /// `SQLITE_NOTADB` or `SQLITE_CORRUPT`.
    case notADatabase(reason: String)
    /// `SQLITE_FULL`: no room for the write.
    case storageFull
    /// Any other failure.
    case other(reason: String)

    /// Sorts `error`: an ``SQLiteResultError`` by its primary result code, anything else as ``other(reason:)``.
    package init(_ error: any Error) {
        guard let error = error as? any SQLiteResultError else {
            self = .other(reason: "\(error)")
            return
        }
        let primary = error.sqliteResultCode & 0xFF
        let reason = error.sqliteMessage ?? String(cString: sqlite3_errstr(primary))
        switch primary {
        case SQLITE_NOTADB, SQLITE_CORRUPT: self = .notADatabase(reason: reason)
        case SQLITE_FULL: self = .storageFull
        default: self = .other(reason: reason)
        }
    }
}
