import Subscriber

/// Who is asking, as the login check decided for one request.
enum Viewer: Sendable, Hashable {
    /// No users file on loopback: the open development mode, where everyone sees everything.
    case open
    /// A logged-in account.
    case account(Account)
    /// Nobody (the state of a request no login check has passed): sees nothing.
    case nobody
}
