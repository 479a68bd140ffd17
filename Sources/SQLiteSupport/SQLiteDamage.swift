/// Damage to a store's SQLite files (the publisher's outbox, the subscriber's history) that
/// SQLite itself would open silently, as an empty or shorter database. Found by
/// ``SQLiteFileCheck/inspect(path:)`` before the file is opened and by ``CommitMark`` after.
package enum SQLiteDamage: Sendable, Equatable, CustomStringConvertible {
    /// The file exists but has no bytes and no write-ahead log holds anything for it (truncated
    /// or replaced): whatever it held is gone.
    case emptyFile(path: String)
    /// The file has no bytes but its write-ahead log has frames: SQLite would delete that log on
    /// opening. Both were moved aside (to `movedTo` and `movedTo-wal`) before a new file was made.
    case emptyFileWithLog(path: String, logBytes: Int, movedTo: String)
    /// The write-ahead log is missing while its index (`-shm`) is still there: the log was deleted
    /// after an unclean stop, with the transactions committed since the last checkpoint.
    case missingLog(path: String)
    /// A frame of the write-ahead log fails its checksum while later frames of the same log
    /// generation include commits: SQLite ignores everything from the damaged frame on, so those
    /// commits are lost.
    /// A copy of the log is kept as `<path>.damaged-<epoch>`.
    case damagedLog(path: String, frame: Int, frames: Int, lostCommits: Int)
    /// The file holds fewer committed transactions than its commit mark (`<file>-mark`) recorded:
    /// `transactions` commits, which had added `rows` rows, are missing.
    case missingCommits(path: String, transactions: Int, rows: Int)

    /// A sentence naming the file and what is lost.
    package var description: String {
        switch self {
        case let .emptyFile(path):
            "The file \(path) is empty (0 bytes): what it held, if anything, is lost. Starting with an empty file."
        case let .emptyFileWithLog(path, logBytes, movedTo):
            "The file \(path) is empty (0 bytes) but its write-ahead log holds \(logBytes) bytes, which SQLite would delete: "
                + "both were moved aside to \(movedTo) and \(movedTo)-wal, and what the file held is lost. Starting with an empty file."
        case let .missingLog(path):
            "The write-ahead log \(path) is missing although its index \(path.dropLast(4))-shm exists: it was deleted "
                + "after an unclean stop, and what was committed since the last checkpoint is lost."
        case let .damagedLog(path, frame, frames, lostCommits):
            "The write-ahead log \(path) is damaged at frame \(frame) of \(frames): SQLite ignores the rest of it, "
                + "so \(lostCommits) committed transaction(s) after that point are lost."
        case let .missingCommits(path, transactions, rows):
            "The file \(path) lacks the last \(transactions) committed transaction(s) its commit mark \(path)-mark recorded: "
                + "\(rows) row(s) they added are lost."
        }
    }

    /// The rows this damage is known to have lost, when it says (only ``missingCommits(path:transactions:rows:)`` does).
    package var lostRows: Int? {
        if case let .missingCommits(_, _, rows) = self { return rows }
        return nil
    }
}
