import WhereaboutsCore

/// Counters of what the subscriber did with incoming messages and outgoing views.
public struct IngestStatistics: Sendable, Hashable, Codable {
    /// Messages accepted (including duplicates and older fixes, which are valid).
    public var accepted = 0
    /// Fixes dropped because the member already had a fix with the same `tst`.
    public var duplicates = 0
    /// Fixes older than the member's live fix: kept in the trail only.
    public var olderFixes = 0
    /// Fixes that were not live news (older than the live fix, or older than the live window on
    /// arrival): history for the trail, never news of being online. Includes ``olderFixes``.
    public var backlog = 0
    /// Well-formed messages of a type views do not use (`cmd`, `status`, `encrypted`...).
    public var ignored = 0
    /// Ignored messages by `_type` (unknown types as `other`).
    public var ignoredByType: [String: Int] = [:]
    /// Informational fields dropped from accepted messages, by key.
    public var droppedFields: [String: Int] = [:]
    /// Rejected messages by ``MessageRejectionReason/code``: the one tally of the subscriber's
    /// rejections, which the log rule (first of each reason at info) also reads.
    public var rejected = RejectionTally<String>()
    /// Views handed to the publisher.
    public var viewsBuilt = 0
    /// Events handed to the publisher.
    public var events = 0

    /// Creates empty counters.
    public init() {}
}
