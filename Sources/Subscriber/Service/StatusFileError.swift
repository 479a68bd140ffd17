import Foundation
import Glibc

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
