#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// What the project's stores kept in one SQLite file (the publisher's outbox, the subscriber's
/// history) do alike before they use the file: create its folder, and make sure the file is
/// theirs.
package enum SQLiteFile {
    /// Creates the folder that holds the file at `path`, with its parents, when it is missing.
    ///
    /// - Throws: `failure`'s `cannotCreateDirectory`, naming the folder and the reason.
    package static func createFolder<Failure: SQLiteFileError>(holding path: String, failure _: Failure.Type) throws(Failure) {
        let folder = PathText.folder(of: path)
        guard !folder.isEmpty else { return }
        if let reason = makeFolders(folder) { throw .cannotCreateDirectory(path: folder, reason: reason) }
    }

    /// Claims the open database for the program whose `PRAGMA application_id` is `applicationID`:
    /// a new, empty file is stamped with it; a file with tables or another application id
    /// belongs to another program and is refused.
    ///
    /// - Returns: `true` when the file already was the program's own (its schema may then be
    ///   checked), `false` when it was new and has just been stamped.
    /// - Throws: `failure`'s `foreignDatabase` for a file of another program; SQLite's errors.
    package static func claim<Failure: SQLiteFileError>(
        _ db: some SQLiteDatabase, applicationID: Int32, path: String, failure _: Failure.Type
    ) throws -> Bool {
        let found = Int32(truncatingIfNeeded: try db.int64("PRAGMA application_id") ?? 0)
        guard found != applicationID else { return true }
        let tableCount = try db.int("SELECT COUNT(*) FROM sqlite_master") ?? 0
        guard found == 0, tableCount == 0 else {
            throw Failure.foreignDatabase(path: path, applicationID: found)
        }
        try db.execute("PRAGMA application_id = \(applicationID)")
        return false
    }

    /// The schema steps applied to the file, by name: the table `grdb_migrations`, which GRDB's
    /// `DatabaseMigrator` keeps (the history migrates with it; the outbox, on SQLite's C API,
    /// keeps the same table so that its files stay as every version wrote them). Empty when the
    /// table does not exist yet.
    package static func appliedSteps(_ db: some SQLiteDatabase) throws(SQLiteError) -> [String] {
        guard try db.int("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") ?? 0 > 0 else {
            return []
        }
        return try db.rows("SELECT identifier FROM grdb_migrations") { $0.text(0) ?? "" }
    }

    /// Refuses a file written by a newer version of the program: one with schema steps this
    /// program does not know (`knownSteps`, in the sense of GRDB's `hasBeenSuperseded`), which an
    /// older program would otherwise write into as if they were not there.
    ///
    /// - Throws: `failure`'s `newerSchema`, with the number of steps the file has; SQLite's errors.
    package static func refuseNewer<Failure: SQLiteFileError>(
        _ db: some SQLiteDatabase, knownSteps: [String], path: String, failure _: Failure.Type
    ) throws {
        let applied = try appliedSteps(db)
        guard !Set(applied).isSubset(of: Set(knownSteps)) else { return }
        throw Failure.newerSchema(path: path, version: applied.count)
    }

    /// Whether the file system holding `path` has (nearly) no room left: less than 64 KiB
    /// available to this process. SQLite reports a full file system as `SQLITE_FULL` only when a
    /// write of its own fails; growing its log index fails as an I/O error instead.
    package static func isOutOfSpace(holding path: String) -> Bool {
        let folder = PathText.folder(of: path)
        var stats = statvfs()
        guard statvfs(folder.isEmpty ? "." : folder, &stats) == 0 else { return false }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize) < 64 * 1024
    }

    /// Creates `folder` and its missing parents (`mkdir -p`, mode 0755 less the umask).
    ///
    /// - Returns: the system's message (`strerror`) when a folder could not be made, `nil` when
    ///   they all exist now.
    static func makeFolders(_ folder: String) -> String? {
        var made = folder.hasPrefix("/") ? "" : "."
        for component in folder.split(separator: "/") {
            made += "/" + component
            if mkdir(made, 0o755) != 0, errno != EEXIST {
                return String(cString: strerror(errno))
            }
        }
        var status = stat()
        guard stat(folder, &status) == 0 else { return String(cString: strerror(errno)) }
        return status.st_mode & S_IFMT == S_IFDIR ? nil : String(cString: strerror(ENOTDIR))
    }
}
