import Foundation
import Logging
import Synchronization
import SystemSupport

/// Checks logins against the users file: passwords (bcrypt), sessions and the rate limit, and
/// counts the outcomes for `/metrics`.
///
/// The users file is reread when its modification time, size or inode changes (checked at most once a second),
/// so `whereabouts-sub passwd` takes effect without a restart; a file that no longer parses is
/// logged and the accounts read before stay in force.
package final class Authenticator: Sendable, Hashable {
    /// The outcome of a password check.
    enum Outcome: Sendable {
        /// The password is right.
        case accepted(Account)
        /// Unknown user or wrong password (not told apart, so names cannot be probed).
        case refused
        /// Too many failures: try again after this many seconds.
        case limited(retryAfter: Int)
    }

    private struct Users {
        var file: UsersFile
        var stamp: FileStamp?
        var checked: Date
        /// A real hash of a random password at the file's cost, checked for unknown names so
        /// that they take as long as wrong passwords.
        var decoy: String
    }

    private struct Counts {
        var accepted = 0, refused = 0, limited = 0, sessionsStarted = 0, webSocketsRevoked = 0
    }

    let configuration: LoginConfiguration
    let sessions: SessionStore
    private let limiter: LoginRateLimiter
    /// The open WebSockets, closed when their access ends.
    private let access = AccessWatch()
    private let users: Mutex<Users>
    private let counts = Mutex(Counts())
    private let logger: Logger

    /// Reads the users file; throws when it cannot be read or is not valid.
    package init(configuration: LoginConfiguration, logger: Logger) throws(UsersFileError) {
        let file = try UsersFile.load(path: configuration.usersPath)
        self.configuration = configuration
        self.sessions = SessionStore(lifetime: configuration.sessionLifetime)
        self.limiter = LoginRateLimiter(settings: configuration)
        self.logger = logger
        users = Mutex(Users(
            file: file, stamp: FileStamp(path: configuration.usersPath), checked: Date(), decoy: Self.decoy(for: file)))
    }

    /// The accounts now (rereading the file when it changed; its stamp, the modification time, size and inode, is looked at
    /// when the last look is `maxAge` seconds old).
    func accounts(now: Date = Date(), maxAge: TimeInterval = 1) -> [String: Account] {
        let path = configuration.usersPath
        return users.withLock { users in
            guard now.timeIntervalSince(users.checked) >= maxAge else { return users.file.accounts }
            users.checked = now
            let stamp = FileStamp(path: path)
            guard stamp != users.stamp else { return users.file.accounts }
            users.stamp = stamp
            do {
                let file = try UsersFile.load(path: path)
                if Self.cost(of: file) != Self.cost(of: users.file) { users.decoy = Self.decoy(for: file) }
                users.file = file
                logger.notice("Reread the users file.", metadata: ["whereabouts.file": "\(path)", "whereabouts.accounts": "\(file.accounts.count)"])
            } catch {
                logger.error("The users file changed but cannot be used; the accounts read before stay in force.", metadata: ["whereabouts.error": "\(error)"])
            }
            return users.file.accounts
        }
    }

    /// Checks `password` for `name`, tried from `address`, under the rate limit: the check is
    /// reserved before the password is hashed, so parallel attempts never make more checks than
    /// the limit allows (``LoginRateLimiter``).
    func check(name: String, password: String, address: String) async -> Outcome {
        let reservation: LoginRateLimiter.Reservation
        switch await limiter.reserve(account: name, address: address) {
        case .check(let reserved):
            reservation = reserved
        case .limited(let wait):
            counts.withLock { $0.limited += 1 }
            logger.notice("Login refused: too many failed attempts.", metadata: ["whereabouts.user": "\(name.prefix(64))", "whereabouts.client": "\(address)", "whereabouts.retryAfter": "\(wait)"])
            return .limited(retryAfter: wait)
        }
        let account = accounts()[name]
        let hash = account?.passwordHash ?? users.withLock { $0.decoy }
        let matches = await PasswordHashing.verify(password, hash: hash)
        guard let account, matches else {
            limiter.finish(reservation, succeeded: false)
            counts.withLock { $0.refused += 1 }
            logger.notice("Login refused: unknown user or wrong password.", metadata: ["whereabouts.user": "\(name.prefix(64))", "whereabouts.client": "\(address)"])
            return .refused
        }
        limiter.finish(reservation, succeeded: true)
        counts.withLock { $0.accepted += 1 }
        return .accepted(account)
    }

    /// Starts a session for `account` (after ``check(name:password:address:)`` accepted it).
    func startSession(for account: Account) -> (token: String, expires: Date) {
        counts.withLock { $0.sessionsStarted += 1 }
        logger.info("Logged in.", metadata: ["whereabouts.user": "\(account.name)"])
        return sessions.start(for: account)
    }

    /// The account of session `token`, if it is live.
    func account(forSession token: String) -> Account? {
        sessions.account(for: token, in: accounts())
    }

    /// Ends the session `token` (logout), and closes the WebSockets opened with it at once.
    func endSession(_ token: String) {
        sessions.end(token)
        closeEndedAccess()
    }

    /// What let `viewer` in on a request with `session` (a cookie or bearer token; `nil` for HTTP
    /// basic); `nil` when it is not an account.
    static func credential(of viewer: Viewer, session: String?) -> Credential? {
        guard case .account(let account) = viewer else { return nil }
        return Credential(account: account.name, passwordHash: account.passwordHash, session: session)
    }

    /// Whether `credential` still gives access: its session is live (not ended, not expired, its
    /// account still there with the same password), or without a session, its account still has
    /// the same password.
    func isValid(_ credential: Credential, accounts: [String: Account]? = nil) -> Bool {
        let accounts = accounts ?? self.accounts()
        if let token = credential.session {
            return sessions.account(for: token, in: accounts)?.name == credential.account
        }
        return accounts[credential.account]?.passwordHash == credential.passwordHash
    }

    /// Returns when `credential`'s access ends (logout, a changed password, the account removed
    /// from the users file, the session expired), or when the task is cancelled. An open WebSocket
    /// waits on this and closes when it returns.
    func untilAccessEnds(_ credential: Credential) async {
        await access.untilRevoked(credential) { isValid(credential) }
    }

    /// Returns once a WebSocket is open (at once if one is), or when the task is cancelled.
    func untilWebSocketsOpen() async {
        await access.untilWatching()
    }

    /// Looks at the users file now and ends the wait of every open WebSocket whose access has
    /// ended. ``AccessWatchService`` calls it four times a second while WebSockets are open.
    func closeEndedAccess(now: Date = Date()) {
        guard access.count > 0 else { return }
        let accounts = accounts(now: now, maxAge: 0)
        let closed = access.revoke { !isValid($0, accounts: accounts) }
        guard !closed.isEmpty else { return }
        counts.withLock { $0.webSocketsRevoked += closed.count }
        for (name, count) in Dictionary(grouping: closed, by: { $0 }).mapValues(\.count) {
            logger.info("Closed WebSockets whose access ended (logout, changed password, removed account or expired session).",
                        metadata: ["whereabouts.user": "\(name)", "whereabouts.connections": "\(count)"])
        }
    }

    /// The login counters in the Prometheus text format.
    func metricsText() -> String {
        let counts = counts.withLock { $0 }
        return """
            # HELP whereabouts_dashboard_logins_total Dashboard password checks (form, /api/login, HTTP basic) by result.
            # TYPE whereabouts_dashboard_logins_total counter
            whereabouts_dashboard_logins_total{result="accepted"} \(counts.accepted)
            whereabouts_dashboard_logins_total{result="refused"} \(counts.refused)
            whereabouts_dashboard_logins_total{result="rate_limited"} \(counts.limited)
            # HELP whereabouts_dashboard_sessions_started_total Dashboard sessions started (cookie or bearer token).
            # TYPE whereabouts_dashboard_sessions_started_total counter
            whereabouts_dashboard_sessions_started_total \(counts.sessionsStarted)
            # HELP whereabouts_dashboard_websockets_revoked_total Open WebSockets closed because their access ended (logout, changed password, removed account, expired session).
            # TYPE whereabouts_dashboard_websockets_revoked_total counter
            whereabouts_dashboard_websockets_revoked_total \(counts.webSocketsRevoked)

            """
    }

    /// The number of accounts now.
    package var accountCount: Int { accounts().count }

    /// Authenticators are equal when they are the same object.
    package static func == (lhs: Authenticator, rhs: Authenticator) -> Bool { lhs === rhs }

    /// Hashes the object's identity.
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    private static func cost(of file: UsersFile) -> Int {
        file.accounts.values.compactMap { PasswordHashing.cost(of: $0.passwordHash) }.max() ?? PasswordHashing.defaultCost
    }

    private static func decoy(for file: UsersFile) -> String {
        var generator = SystemRandomNumberGenerator()
        return PasswordHashing.hashNow(String(generator.next() as UInt64, radix: 36), cost: cost(of: file))
    }
}
