/// Counters of what the subscriber did with incoming messages and outgoing views.
public struct IngestStatistics: Sendable, Hashable, Codable {
    /// Messages accepted (including duplicates and older fixes, which are valid).
    public var accepted = 0
    /// Fixes dropped because the member already had a fix with the same `tst`.
    public var duplicates = 0
    /// Fixes older than the member's live fix: kept in the trail only.
    public var olderFixes = 0
    /// Backlog fixes (`created_at` later than `tst`): history, never news of being online.
    public var backlog = 0
    /// Well-formed messages of a type views do not use (`cmd`, `status`...).
    public var ignored = 0
    /// Rejected messages by ``RejectionReason/code``.
    public var rejected: [String: Int] = [:]
    /// Views handed to the publisher.
    public var viewsBuilt = 0
    /// Events handed to the publisher.
    public var events = 0

    /// Creates empty counters.
    public init() {}

    /// All rejections, whatever the reason.
    public var rejectedTotal: Int { rejected.values.reduce(0, +) }
}
