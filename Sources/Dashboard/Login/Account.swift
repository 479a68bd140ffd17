/// One dashboard account from the users file: who may log in and what they may see.
package struct Account: Sendable, Hashable {
    /// The login name. When the account lists no ``circles``, it belongs to every circle that has
    /// a member with this OwnTracks user name.
    package var name: String
    /// The bcrypt hash of the password (`$2b$...`), as `whereabouts-sub passwd` writes it.
    var passwordHash: String
    /// The ids of the circles the account belongs to; `nil`: derived from the circles file.
    package var circles: [String]?
    /// The ids of the circles the account administers: it may read the history of their members
    /// whose positions the circle shows exactly, and invite phones to them from the dashboard
    /// (Invite/DashboardRouter+Invites.swift).
    package var admin: [String]

    /// Creates an account.
    package init(name: String, passwordHash: String, circles: [String]? = nil, admin: [String] = []) {
        self.name = name
        self.passwordHash = passwordHash
        self.circles = circles
        self.admin = admin
    }
}
