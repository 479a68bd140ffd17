import WhereaboutsCore

/// One accepted message, handed from ingest to the history writer.
enum HistoryRow: Sendable {
    /// A location of `member`, received at `receivedAt` (epoch seconds).
    case location(MemberID, LocationMessage, receivedAt: Double)
    /// A transition of `member`: `event` (`enter`, `leave`) for `region` at `tst`.
    case transition(MemberID, event: String, region: String?, tst: Int, receivedAt: Double)
}
