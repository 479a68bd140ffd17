import Foundation
import GRDB

/// What the project's stores kept in one SQLite file (the publisher's outbox, the subscriber's
/// history) do alike before they use the file: create its folder, and make sure the file is
/// theirs.
package enum SQLiteFile {
    /// Creates the folder that holds the file at `path`, with its parents, when it is missing.
    ///
    /// - Throws: `failure`'s `cannotCreateDirectory`, naming the folder and the reason.
    package static func createFolder<Failure: SQLiteFileError>(holding path: String, failure _: Failure.Type) throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreateDirectory(path: folder, reason: error.localizedDescription)
        }
    }

    /// Claims the open database for the program whose `PRAGMA application_id` is `applicationID`:
    /// a new, empty file is stamped with it; a file with tables or another application id
    /// belongs to another program and is refused.
    ///
    /// - Returns: `true` when the file already was the program's own (its schema may then be
    ///   checked), `false` when it was new and has just been stamped.
    /// - Throws: `failure`'s `foreignDatabase` for a file of another program; SQLite's errors.
    package static func claim<Failure: SQLiteFileError>(
        _ db: Database, applicationID: Int32, path: String, failure _: Failure.Type
    ) throws -> Bool {
        let found = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        guard found != applicationID else { return true }
        let tableCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") ?? 0
        guard found == 0, tableCount == 0 else {
            throw Failure.foreignDatabase(path: path, applicationID: found)
        }
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        return false
    }

    /// Refuses a file written by a newer version of the program: one with schema steps
    /// (`migrator`'s migrations) this program does not know (GRDB's `hasBeenSuperseded`), which
    /// an older program would otherwise write into as if they were not there.
    ///
    /// - Throws: `failure`'s `newerSchema`, with the number of steps the file has; SQLite's errors.
    package static func refuseNewer<Failure: SQLiteFileError>(
        _ db: Database, migrator: DatabaseMigrator, path: String, failure _: Failure.Type
    ) throws {
        guard try migrator.hasBeenSuperseded(db) else { return }
        let steps = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") ?? 0
        throw Failure.newerSchema(path: path, version: steps)
    }

    /// Whether the file system holding `path` has (nearly) no room left: less than 64 KiB
    /// available to this process. SQLite reports a full file system as `SQLITE_FULL` only when a
    /// write of its own fails; growing its log index fails as an I/O error instead.
    package static func isOutOfSpace(holding path: String) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        var stats = statvfs()
        guard statvfs(folder.isEmpty ? "." : folder, &stats) == 0 else { return false }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize) < 64 * 1024
    }
}
