import Foundation

/// Why the password could not be read. The messages never contain the password.
public enum PasswordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The password file could not be read.
    case unreadable(path: String, reason: String)
    /// The password file's first line is empty.
    case empty(path: String)

    /// A sentence naming the file.
    public var description: String {
        switch self {
        case let .unreadable(path, reason): "Cannot read the password file \(path): \(reason)."
        case let .empty(path): "The password file \(path) is empty; its first line is the password."
        }
    }
}
