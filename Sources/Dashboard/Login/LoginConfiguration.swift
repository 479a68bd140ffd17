import Foundation

/// How the dashboard logs people in (`--users FILE` and its companions).
package struct LoginConfiguration: Sendable, Hashable {
    /// The users file (``UsersFile``); reread when it changes.
    package var usersPath: String
    /// Whether the session cookie carries `Secure` (sent over HTTPS only). Set it when the
    /// dashboard is reached through a TLS-terminating proxy; whereabouts-sub itself speaks plain HTTP.
    package var secureCookie: Bool
    /// How long a session (cookie or bearer token) lasts, in seconds.
    package var sessionLifetime: TimeInterval
    /// Failed logins of one account name within ``failureWindow`` before further attempts get 429.
    var maxFailuresPerAccount: Int
    /// Failed logins from one client address within ``failureWindow`` before further attempts get 429.
    var maxFailuresPerAddress: Int
    /// The window failed logins are counted in, in seconds.
    var failureWindow: TimeInterval

    /// Creates a configuration; every argument but the path has a default.
    package init(
        usersPath: String, secureCookie: Bool = false, sessionLifetime: TimeInterval = 12 * 3600,
        maxFailuresPerAccount: Int = 5, maxFailuresPerAddress: Int = 20, failureWindow: TimeInterval = 300
    ) {
        self.usersPath = usersPath
        self.secureCookie = secureCookie
        self.sessionLifetime = sessionLifetime
        self.maxFailuresPerAccount = maxFailuresPerAccount
        self.maxFailuresPerAddress = maxFailuresPerAddress
        self.failureWindow = failureWindow
    }
}
