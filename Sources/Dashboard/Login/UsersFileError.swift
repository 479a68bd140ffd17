/// Why a users file could not be read or written; the message says what to fix.
package struct UsersFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file concerned.
    package var path: String
    /// A sentence saying what is wrong and how to fix it.
    package var message: String

    /// Creates an error about `path`.
    package init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `users file <path>: <message>`.
    package var description: String { "users file \(path): \(message)" }
}
