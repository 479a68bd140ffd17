import WhereaboutsCore

/// One accepted message, or one location rejected as an outlier, handed from ingest to the
/// history writer.
enum HistoryRow: Sendable {
    /// A location of `member`, received at `receivedAt` (epoch seconds).
    case location(MemberID, LocationMessage, receivedAt: Double)
    /// A location of `member` rejected as an outlier for `reason` (a ``MessageRejectionReason/code``:
    /// `future_timestamp`, `poor_accuracy`, `implied_speed`): kept aside, never shown, restorable.
    case rejected(MemberID, LocationMessage, reason: String, receivedAt: Double)
    /// A transition of `member`: `event` (`enter`, `leave`) for `region` at `tst`.
    case transition(MemberID, event: String, region: String?, tst: Int, receivedAt: Double)
}
