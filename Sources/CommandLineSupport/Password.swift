#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Reads the broker password without ever putting it on the command line or in a log.
package enum Password {
    /// The environment variable read when no password file is given.
    static let environmentVariable = "WHEREABOUTS_PASSWORD"

    /// The password from `file` (its first line, without the line break) when given, else from
    /// `WHEREABOUTS_PASSWORD`, else `nil`.
    ///
    /// - Throws: ``PasswordError`` when the file cannot be read or is empty.
    package static func resolve(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(PasswordError) -> String? {
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw .unreadable(path: file, reason: fileErrorReason(error))
            }
            // "\r\n" is one Character in Swift, so split on any newline, not on "\n".
            let password = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !password.isEmpty else { throw .empty(path: file) }
            return password
        }
        if let value = environment[environmentVariable], !value.isEmpty { return value }
        return nil
    }
}

/// Why the password could not be read. The messages never contain the password.
package enum PasswordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The password file could not be read.
    case unreadable(path: String, reason: String)
    /// The password file's first line is empty.
    case empty(path: String)

    /// A sentence naming the file.
    package var description: String {
        switch self {
        case let .unreadable(path, reason): "Cannot read the password file \(path): \(reason)."
        case let .empty(path): "The password file \(path) is empty; its first line is the password."
        }
    }
}
