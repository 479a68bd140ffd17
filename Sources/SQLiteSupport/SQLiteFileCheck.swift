#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Looks at a store's files (the publisher's outbox, the subscriber's history) before SQLite
/// opens them, for damage SQLite would open silently as an empty or shorter database.
package enum SQLiteFileCheck {
    /// The damage found at `path` and its `-wal`/`-shm` companions (none for sound or new files).
    ///
    /// An empty file next to a write-ahead log with frames is moved aside with its log and index
    /// (`<path>.damaged-<epoch>`, `-wal`, `-shm`) before anything opens it: SQLite would delete
    /// that log. `now` names the moved files.
    package static func inspect(path: String, now: Date = Date()) -> [SQLiteDamage] {
        let files = FileManager.default
        var damage: [SQLiteDamage] = []
        let wal = path + "-wal", shm = path + "-shm"
        let logBytes = size(of: wal) ?? 0
        if size(of: path) == 0 {
            guard logBytes > 0 else { return [.emptyFile(path: path)] }
            let aside = path + ".damaged-\(Int(now.timeIntervalSince1970))"
            do {
                try files.moveItem(atPath: path, toPath: aside)
                try files.moveItem(atPath: wal, toPath: aside + "-wal")
                if files.fileExists(atPath: shm) { try files.moveItem(atPath: shm, toPath: aside + "-shm") }
            } catch {
                // Left in place, SQLite deletes the log when it opens the file: the loss is the same,
                // and still reported.
            }
            return [.emptyFileWithLog(path: path, logBytes: logBytes, movedTo: aside)]
        }
        if files.fileExists(atPath: path), files.fileExists(atPath: shm), !files.fileExists(atPath: wal) {
            damage.append(.missingLog(path: wal))
        }
        if logBytes > 0, let data = files.contents(atPath: wal), let found = checkLog(data, path: wal) {
            // Kept for whoever wants to look: the store cuts the log back once it opened.
            try? files.copyItem(atPath: wal, toPath: wal + ".damaged-\(Int(now.timeIntervalSince1970))")
            damage.append(found)
        }
        return damage
    }

    /// After a store opened files in which damage was found: checkpoints the log into the file
    /// and truncates it, so that the damaged rest of the log (which SQLite ignores until a write
    /// overwrites it) is not found and reported again at the next start. Failures are ignored
    /// (the next start reports the same damage again, which says no more than the truth).
    package static func settle(_ db: some SQLiteDatabase) {
        try? db.checkpointTruncating()
    }

    /// Throws `SQLITE_READONLY_DBMOVED`, with a message that names `path` and what to do, when
    /// the main database file `db` has open is no longer the file at its path
    /// (``SQLiteDatabase/fileHasMoved``). SQLite returns that code itself only for
    /// rollback-journal databases; in WAL mode, as the stores run, it keeps committing into the
    /// old inode, which nothing can read once the process ends. Called inside a write
    /// transaction, before it commits: the transaction is rolled back and nothing is written into
    /// the superseded file.
    static func checkInPlace(_ db: some SQLiteDatabase, path: String) throws(SQLiteError) {
        guard db.fileHasMoved else { return }
        throw SQLiteError(
            code: SQLiteError.fileMovedCode,
            message: "the file at \(path) was deleted or replaced while it was open; nothing more is written into the "
                + "superseded file (its last commits stay in it, not in the file now at that path). Restart to open the file now at that path")
    }

    /// The file's size in bytes, `nil` when it does not exist. From `stat(2)`: FoundationEssentials'
    /// `attributesOfItem` gives `.size` as a `UInt`, which `as? Int` does not read (it did through
    /// full Foundation's NSNumber bridging), so a size from there was `nil` in whereabouts-pub.
    static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Verifies the frames of a write-ahead log as SQLite does (https://www.sqlite.org/fileformat2.html,
    /// "The WAL file format": cumulative Fletcher-style checksums over 32-bit words, in the byte
    /// order the magic number names, salts copied from the header into every frame).
    static func checkLog(_ data: Data, path: String) -> SQLiteDamage? {
        let bytes = [UInt8](data)
        guard bytes.count >= 32 else { return nil }
        let magic = word(bytes, 0, bigEndian: true)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(word(bytes, 8, bigEndian: true))
        guard pageSize >= 512, pageSize <= 65536 else { return nil }
        let salt1 = word(bytes, 16, bigEndian: true), salt2 = word(bytes, 20, bigEndian: true)
        var (s0, s1) = checksum(bytes, 0..<24, bigEndian: bigEndian, start: (0, 0))
        guard s0 == word(bytes, 24, bigEndian: true), s1 == word(bytes, 28, bigEndian: true) else { return nil }
        let frameSize = 24 + pageSize
        let frames = (bytes.count - 32) / frameSize
        var firstBad: Int?
        var lostCommits = 0
        for index in 0..<frames {
            let at = 32 + index * frameSize
            guard word(bytes, at + 8, bigEndian: true) == salt1, word(bytes, at + 12, bigEndian: true) == salt2 else {
                break  // an older generation of the log: not part of the current one
            }
            let isCommit = word(bytes, at + 4, bigEndian: true) != 0
            if firstBad != nil {
                if isCommit { lostCommits += 1 }
                continue
            }
            var sums = checksum(bytes, at..<(at + 8), bigEndian: bigEndian, start: (s0, s1))
            sums = checksum(bytes, (at + 24)..<(at + frameSize), bigEndian: bigEndian, start: sums)
            if sums.0 == word(bytes, at + 16, bigEndian: true), sums.1 == word(bytes, at + 20, bigEndian: true) {
                (s0, s1) = sums
            } else {
                firstBad = index
                if isCommit { lostCommits += 1 }
            }
        }
        // A bad last transaction alone is a write cut short by a crash before its commit
        // returned: nothing committed is lost then.
        guard let firstBad, lostCommits > 1 || (lostCommits == 1 && !isLastCommitOnly(bytes, from: firstBad, frames: frames, frameSize: frameSize, salts: (salt1, salt2))) else {
            return nil
        }
        return .damagedLog(path: path, frame: firstBad + 1, frames: frames, lostCommits: lostCommits)
    }

    /// Whether the only commit frame from `first` on is the very last frame of the generation
    /// (one transaction, possibly torn by the crash that interrupted it).
    private static func isLastCommitOnly(_ bytes: [UInt8], from first: Int, frames: Int, frameSize: Int, salts: (UInt32, UInt32)) -> Bool {
        var last = first
        for index in first..<frames {
            let at = 32 + index * frameSize
            guard word(bytes, at + 8, bigEndian: true) == salts.0, word(bytes, at + 12, bigEndian: true) == salts.1 else { break }
            last = index
        }
        let at = 32 + last * frameSize
        return word(bytes, at + 4, bigEndian: true) != 0 && (first..<last).allSatisfy { index in
            word(bytes, 32 + index * frameSize + 4, bigEndian: true) == 0
        }
    }

    private static func word(_ bytes: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
        return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
    }

    private static func checksum(_ bytes: [UInt8], _ range: Range<Int>, bigEndian: Bool, start: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = start
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            s0 = s0 &+ word(bytes, at, bigEndian: bigEndian) &+ s1
            s1 = s1 &+ word(bytes, at + 4, bigEndian: bigEndian) &+ s0
            at += 8
        }
        return (s0, s1)
    }
}
