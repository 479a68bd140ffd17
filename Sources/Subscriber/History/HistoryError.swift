import SQLiteSupport

/// Why the location history could not be opened or written.
package enum HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but is not an SQLite database, or is damaged.
    case notADatabase(path: String, reason: String)
    /// The file is an SQLite database of another program (it has tables but not the history's
    /// application id), so the subscriber refuses to write into it.
    case foreignDatabase(path: String, applicationID: Int32)
    /// The file was written by a newer version of the subscriber: it has `version` schema steps,
    /// some of which this one does not know.
    case newerSchema(path: String, version: Int)
    /// The folder for the history file could not be created.
    case cannotCreateDirectory(path: String, reason: String)
    /// The file system holding the history is full (SQLite's `SQLITE_FULL`).
    case storageFull(path: String)
    /// Any other SQLite failure (I/O error, permissions).
    case database(path: String, reason: String)

    /// A sentence a user can act on.
    package var description: String {
        switch self {
        case let .notADatabase(path, reason):
            "The history file \(path) is not an SQLite database or is damaged (\(reason)). Move it aside "
                + "(the subscriber creates a new one) or point --history at another file."
        case let .foreignDatabase(path, applicationID):
            "The file \(path) is an SQLite database of another program (application id \(applicationID)); "
                + "the subscriber will not write into it. Point --history at another file."
        case let .newerSchema(path, version):
            "The history \(path) has \(version) schema steps, some from a newer whereabouts-sub than this one. "
                + "Run the newer version, or move the file aside (this one then starts a new history) or point --history at another file."
        case let .cannotCreateDirectory(path, reason):
            "Cannot create the history folder \(path): \(reason)."
        case let .storageFull(path):
            "The file system holding the history \(path) is full; new locations are not stored. Free space "
                + "there or lower --history-max-mb; locations already stored are intact."
        case let .database(path, reason):
            "The history \(path) failed: \(reason)."
        }
    }
}

/// Failures of the SQLite file sort into this type's cases (``SQLiteFileError/translate(_:path:)``).
extension HistoryError: SQLiteFileError {}
