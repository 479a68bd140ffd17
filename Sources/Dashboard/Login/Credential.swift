/// What let one request in, kept by a WebSocket so that it closes when that access ends: a
/// session (cookie or bearer token), or the account's password at the time (HTTP basic).
struct Credential: Sendable, Hashable {
    /// The account's name.
    let account: String
    /// The password hash the account had when the request was let in.
    let passwordHash: String
    /// The session token, when the request came with a session rather than a password.
    let session: String?
}
