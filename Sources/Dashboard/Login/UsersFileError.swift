/// Why a users file could not be read or written; the message says what to fix.
public struct UsersFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file concerned.
    public var path: String
    /// A sentence saying what is wrong and how to fix it.
    public var message: String

    /// Creates an error about `path`.
    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `users file <path>: <message>`.
    public var description: String { "users file \(path): \(message)" }
}
