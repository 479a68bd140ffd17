/// The error type of a store kept in one SQLite file (the publisher's outbox, the subscriber's
/// history): its cases name the file, and ``translate(_:path:)`` sorts any failure into them.
package protocol SQLiteFileError: Error {
    /// The file is not a SQLite database, or is damaged.
    static func notADatabase(path: String, reason: String) -> Self
    /// The file system holding the file is full.
    static func storageFull(path: String) -> Self
    /// Any other failure, with SQLite's message.
    static func database(path: String, reason: String) -> Self
    /// The folder for the file could not be created.
    static func cannotCreateDirectory(path: String, reason: String) -> Self
    /// The file is an SQLite database of another program (its `PRAGMA application_id`).
    static func foreignDatabase(path: String, applicationID: Int32) -> Self
    /// The file was written by a newer version of the program: its schema has `version` steps,
    /// more than (or other than) this program knows.
    static func newerSchema(path: String, version: Int) -> Self
}

extension SQLiteFileError {
    /// `error` as this type: returned as it is when it already is one, otherwise sorted by
    /// ``SQLiteFailure`` and given the file's `path`.
    package static func translate(_ error: any Error, path: String) -> Self {
        if let error = error as? Self { return error }
        return switch SQLiteFailure(error) {
        case .notADatabase(let reason): .notADatabase(path: path, reason: reason)
        case .storageFull: .storageFull(path: path)
        case .other(let reason): .database(path: path, reason: reason)
        }
    }
}
