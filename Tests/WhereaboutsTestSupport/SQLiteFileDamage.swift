import Foundation

/// Damage to the files of a SQLite database in write-ahead-log mode, done as an operator or a
/// failing disk does it to the files a killed process left (the outbox's and the history's
/// integrity tests).
public enum SQLiteFileDamage: String, CaseIterable, Sendable {
    /// The main file truncated to 0 bytes, its log left: SQLite would delete the log on opening.
    case emptiedWithLog
    /// The log (`-wal`) deleted, its index (`-shm`) left.
    case deletedLog
    /// The log and its index both deleted.
    case deletedLogAndIndex
    /// One byte flipped in the first frame of the log: SQLite ignores the log from there.
    case damagedLog

    /// Does this damage to the database at `path` and its `-wal` and `-shm` files.
    public func inflict(onDatabaseAt path: String) throws {
        let log = path + "-wal"
        switch self {
        case .emptiedWithLog:
            try Data().write(to: URL(fileURLWithPath: path))
        case .deletedLog:
            try FileManager.default.removeItem(atPath: log)
        case .deletedLogAndIndex:
            try FileManager.default.removeItem(atPath: log)
            try FileManager.default.removeItem(atPath: path + "-shm")
        case .damagedLog:
            try Self.flipByteInFirstFrame(ofLogAt: log)
        }
    }

    /// Flips one byte of page data in the first frame of the write-ahead log at `path` (a 32-byte
    /// header, then frames of a 24-byte header and a page): the frame's checksum no longer holds,
    /// so SQLite drops the commits from that frame on.
    public static func flipByteInFirstFrame(ofLogAt path: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let offset: UInt64 = 32 + 24 + 100
        try handle.seek(toOffset: offset)
        guard let byte = try handle.read(upToCount: 1)?.first else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "The log \(path) ends before its first frame."])
        }
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
        try handle.close()
    }
}
