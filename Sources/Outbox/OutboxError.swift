import SQLiteSupport

/// Why the outbox could not be opened or used.
package enum OutboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but is not an SQLite database, or is damaged.
    case notADatabase(path: String, reason: String)
    /// The file is an SQLite database that belongs to something else (it has tables but not the
    /// outbox's application id), so the outbox refuses to write into it.
    case foreignDatabase(path: String, applicationID: Int32)
    /// The outbox's schema version is newer than this program understands.
    case newerSchema(path: String, version: Int)
    /// The folder for the outbox file could not be created.
    case cannotCreateDirectory(path: String, reason: String)
    /// The cap is not a positive number of rows.
    case invalidCap(Int)
    /// The file system holding the outbox has no room for the write (SQLite's `SQLITE_FULL`).
    /// Nothing already stored is affected; writing works again once space is freed (the drainer
    /// deleting acknowledged reports frees it).
    case storageFull(path: String)
    /// Any other SQLite failure (I/O error, permissions).
    case database(path: String, reason: String)

    /// A sentence a user can act on.
    package var description: String {
        switch self {
        case let .notADatabase(path, reason):
            "The outbox file \(path) is not an SQLite database or is damaged (\(reason)). Move it aside "
                + "(the publisher creates a new one) or point --outbox at another file."
        case let .foreignDatabase(path, applicationID):
            "The file \(path) is an SQLite database of another program (application id \(applicationID)); "
                + "the publisher will not write into it. Point --outbox at another file."
        case let .newerSchema(path, version):
            "The outbox \(path) has schema version \(version), newer than this whereabouts-pub understands. "
                + "Run the newer version or point --outbox at another file."
        case let .cannotCreateDirectory(path, reason):
            "Cannot create the outbox folder \(path): \(reason)."
        case let .invalidCap(cap):
            "The outbox cap must be at least 1 row, got \(cap)."
        case let .storageFull(path):
            "The file system holding the outbox \(path) is full; the report could not be stored. "
                + "Free space there (or move --outbox to a larger file system); reports already stored are intact."
        case let .database(path, reason):
            "The outbox \(path) failed: \(reason)."
        }
    }
}

/// Failures of the SQLite file sort into this type's cases (``SQLiteFileError/translate(_:path:)``).
extension OutboxError: SQLiteFileError {}
