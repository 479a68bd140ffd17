/// One correction of the history, as the audit log keeps it: who removed which of a member's
/// locations, and when. Coordinates are never part of it.
public struct HistoryAuditEntry: Sendable, Hashable, Codable {
    /// When, in epoch seconds.
    public var at: Double
    /// Who: the account name, or `open` in the dashboard's open development mode.
    public var actor: String
    /// The client address the request came from.
    public var client: String
    /// What: `delete`, or `restore` (rejected outliers moved into the history; ``removed`` counts
    /// the points taken out of the rejected list).
    public var action: String
    /// Whose locations.
    public var user: String
    /// Which device's.
    public var device: String
    /// The first `tst` of the range removed.
    public var from: Int
    /// The last `tst` of the range removed.
    public var to: Int
    /// How many locations were removed.
    public var removed: Int

    /// Creates an entry.
    public init(at: Double, actor: String, client: String, action: String, user: String, device: String, from: Int, to: Int, removed: Int) {
        self.at = at
        self.actor = actor
        self.client = client
        self.action = action
        self.user = user
        self.device = device
        self.from = from
        self.to = to
        self.removed = removed
    }
}
