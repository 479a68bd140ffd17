/// What restoring rejected outliers did.
package struct HistoryRestoreResult: Sendable, Hashable, Codable {
    /// The audit entry (action `restore`; its `removed` counts the points taken out of the
    /// rejected list).
    package var audit: HistoryAuditEntry
    /// Points now in the history (in `tst` order with the rest).
    package var restored: Int
    /// Points taken out of the rejected list that the history already held at the same `tst`
    /// (the copy already stored is kept).
    package var duplicates: Int
    /// Points of the range left in the rejected list because their `tst` still lies in the
    /// future: restored, they would pin the member's last position ahead of every real fix.
    package var stillInFuture: Int

    /// Creates a result.
    package init(audit: HistoryAuditEntry, restored: Int, duplicates: Int, stillInFuture: Int) {
        self.audit = audit
        self.restored = restored
        self.duplicates = duplicates
        self.stillInFuture = stillInFuture
    }

    private enum CodingKeys: String, CodingKey {
        case audit, restored, duplicates
        case stillInFuture = "still_in_future"
    }
}
