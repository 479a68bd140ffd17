import GRDB
import SQLiteSupport

// The history stays on GRDB; the file checks and the commit mark it shares with the publisher's
// outbox work on SQLite's C API (SQLiteSupport), given GRDB's own connection handle.

/// GRDB's errors sort like the outbox's (SQLiteSupport's `SQLiteFailure`).
extension DatabaseError: SQLiteResultError {
    package var sqliteResultCode: Int32 { extendedResultCode.rawValue }
    package var sqliteMessage: String? { message ?? "\(resultCode)" }
}

extension Database {
    /// GRDB's open connection as SQLiteSupport takes it.
    var sqliteHandle: SQLiteHandle {
        get throws {
            guard let connection = sqliteConnection else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the history's connection is closed")
            }
            return SQLiteHandle(connection)
        }
    }
}

extension CommitMark {
    /// ``CommitMark/count(_:rows:)`` inside a GRDB transaction: the mark file is written once it commits.
    func count(_ db: Database, rows: Int) throws {
        let count = try count(db.sqliteHandle, rows: rows)
        db.afterNextTransaction { [self] _ in record(count) }
    }

    /// ``CommitMark/verify(_:)`` on GRDB's connection.
    func verify(_ db: Database) throws -> SQLiteDamage? { try verify(db.sqliteHandle) }

    /// ``CommitMark/prepare(_:table:)`` as a GRDB migration step.
    static func prepare(_ db: Database, table: String) throws { try prepare(db.sqliteHandle, table: table) }
}

extension SQLiteFile {
    /// ``SQLiteFile/claim(_:applicationID:path:failure:)`` on GRDB's connection.
    static func claim<Failure: SQLiteFileError>(_ db: Database, applicationID: Int32, path: String, failure: Failure.Type) throws -> Bool {
        try claim(db.sqliteHandle, applicationID: applicationID, path: path, failure: failure)
    }

    /// Refuses a file with schema steps `migrator` does not know (``SQLiteFile/refuseNewer(_:knownSteps:path:failure:)``).
    static func refuseNewer<Failure: SQLiteFileError>(_ db: Database, migrator: DatabaseMigrator, path: String, failure: Failure.Type) throws {
        try refuseNewer(db.sqliteHandle, knownSteps: migrator.migrations, path: path, failure: failure)
    }
}

extension SQLiteFileCheck {
    /// ``SQLiteFileCheck/settle(_:)`` through GRDB's writer.
    static func settle(_ writer: some DatabaseWriter) {
        try? writer.writeWithoutTransaction { db in settle(try db.sqliteHandle) }
    }
}
