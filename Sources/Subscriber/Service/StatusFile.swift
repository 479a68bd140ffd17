import Foundation
import WhereaboutsCore
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// The file that keeps member statuses across restarts: JSON, replaced atomically (written to a
/// temporary file, flushed with `fsync`, renamed over the old one, directory flushed), so a crash
/// leaves either the old or the new version, never a torn one.
struct StatusFile: Sendable {
    /// The file's path.
    let path: String

    /// Creates a handle for `path`; nothing is read or written yet.
    init(path: String) {
        self.path = path
    }

    private struct Contents: Codable {
        var version = 1
        var members: [StatusRecord]
    }

    /// The saved statuses; empty when the file does not exist yet.
    func load() throws(StatusFileError) -> [StatusRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "\(error.localizedDescription)")
        }
        do {
            let contents = try JSONDecoder().decode(Contents.self, from: data)
            guard contents.version == 1 else { throw StatusFileError.unreadable(path: path, reason: "unknown version \(contents.version)") }
            return contents.members
        } catch let error as StatusFileError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "not a status file (\(error))")
        }
    }

    /// Replaces the file with `records`.
    func save(_ records: [StatusRecord]) throws(StatusFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Contents(members: records)) else {
            throw .unwritable(path: path, reason: "could not encode the statuses")
        }
        do {
            try AtomicFile.write(data, to: path)
        } catch {
            throw .unwritable(path: path, reason: error.reason)
        }
    }
}

/// Why the status file could not be read or written.
enum StatusFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but cannot be read or parsed.
    case unreadable(path: String, reason: String)
    /// The file cannot be written (directory missing or read-only, disk full...).
    case unwritable(path: String, reason: String)

    /// A sentence naming the file and what to do.
    var description: String {
        switch self {
        case let .unreadable(path, reason):
            "The status file \(path) cannot be read: \(reason). Statuses start unknown; fix or remove the file."
        case let .unwritable(path, reason):
            "The status file \(path) cannot be written: \(reason). Statuses will not survive a restart until it can; check --state-file."
        }
    }
}
