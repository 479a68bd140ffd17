/// One correction of the history, as the audit log keeps it: who removed which of a member's
/// locations, and when. Coordinates are never part of it.
package struct HistoryAuditEntry: Sendable, Hashable, Codable {
    /// When, in epoch seconds.
    package var at: Double
    /// Who: the account name, or `open` in the dashboard's open development mode.
    package var actor: String
    /// The client address the request came from.
    package var client: String
    /// What: `delete`, or `restore` (rejected outliers moved into the history; ``removed`` counts
    /// the points taken out of the rejected list).
    package var action: String
    /// Whose locations.
    package var user: String
    /// Which device's.
    package var device: String
    /// The first `tst` of the range removed.
    package var from: Int
    /// The last `tst` of the range removed.
    package var to: Int
    /// How many locations were removed.
    package var removed: Int

    /// Creates an entry.
    package init(at: Double, actor: String, client: String, action: String, user: String, device: String, from: Int, to: Int, removed: Int) {
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
