import Foundation

/// Damage to the outbox's files that SQLite would open silently, as empty or shorter: found by
/// ``OutboxFileCheck/inspect(path:)`` before the outbox is opened.
public enum OutboxDamage: Sendable, Equatable, CustomStringConvertible {
    /// The outbox file exists but has no bytes (truncated or replaced): whatever it held is gone.
    case emptyFile(path: String)
    /// The write-ahead log is missing while its index (`-shm`) is still there: the log was deleted
    /// after an unclean stop, with the reports committed since the last checkpoint.
    case missingLog(path: String)
    /// A frame of the write-ahead log fails its checksum while later frames of the same log
    /// generation include commits: SQLite ignores everything from the damaged frame on, so those
    /// commits are lost.
    case damagedLog(path: String, frame: Int, frames: Int, lostCommits: Int)

    /// A sentence naming the file and what may be lost.
    public var description: String {
        switch self {
        case let .emptyFile(path):
            "The outbox file \(path) is empty (0 bytes): the reports it held, if any, are lost. Starting with an empty outbox."
        case let .missingLog(path):
            "The outbox's write-ahead log \(path) is missing although its index \(path.dropLast(4))-shm exists: it was deleted "
                + "after an unclean stop, and reports committed since the last checkpoint are lost."
        case let .damagedLog(path, frame, frames, lostCommits):
            "The outbox's write-ahead log \(path) is damaged at frame \(frame) of \(frames): SQLite ignores the rest of it, "
                + "so \(lostCommits) committed transaction(s) after that point (reports or deletions of sent ones) are lost."
        }
    }
}
