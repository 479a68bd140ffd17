import Foundation
import Synchronization

/// The dashboard's login sessions, in memory: a restart logs everyone out.
///
/// A session is a 256-bit token from the system's secure random source (`getrandom` on Linux),
/// sent as the session cookie or as a bearer token. It ends at logout, after its lifetime, or as
/// soon as the account's password hash changes or the account is removed from the users file, so
/// a stolen token stops working once the password is changed.
final class SessionStore: Sendable {
    private struct Session {
        var account: String
        var passwordHash: String
        var expires: Date
    }

    /// The most sessions one account holds; logging in again past it ends its oldest session.
    static let maxPerAccount = 50

    private let lifetime: TimeInterval
    private let sessions = Mutex<[String: Session]>([:])

    /// Creates an empty store whose sessions last `lifetime` seconds.
    init(lifetime: TimeInterval) {
        self.lifetime = lifetime
    }

    /// Starts a session for `account` and returns its token.
    func start(for account: Account, now: Date = Date()) -> (token: String, expires: Date) {
        var generator = SystemRandomNumberGenerator()
        let token = (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
        let expires = now.addingTimeInterval(lifetime)
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            let own = sessions.filter { $0.value.account == account.name }.sorted { $0.value.expires < $1.value.expires }
            for (oldest, _) in own.prefix(max(0, own.count - Self.maxPerAccount + 1)) { sessions[oldest] = nil }
            sessions[token] = Session(account: account.name, passwordHash: account.passwordHash, expires: expires)
        }
        return (token, expires)
    }

    /// The account of the live session `token`, looked up in `accounts`; `nil` when there is no
    /// such session, it expired, or its account is gone or has a new password.
    func account(for token: String, in accounts: [String: Account], now: Date = Date()) -> Account? {
        sessions.withLock { sessions in
            guard let session = sessions[token] else { return nil }
            guard session.expires > now, let account = accounts[session.account], account.passwordHash == session.passwordHash else {
                sessions[token] = nil
                return nil
            }
            return account
        }
    }

    /// Ends the session `token` (nothing happens when there is none).
    func end(_ token: String) {
        sessions.withLock { _ = $0.removeValue(forKey: token) }
    }
}
