import WhereaboutsCore

/// Counters of what the subscriber did with incoming messages and outgoing views.
package struct IngestStatistics: Sendable, Hashable, Codable {
    /// Messages accepted (including duplicates and older fixes, which are valid).
    package var accepted = 0
    /// Fixes dropped because the member already had a fix with the same `tst`.
    package var duplicates = 0
    /// Fixes older than the member's live fix: kept in the trail only.
    package var olderFixes = 0
    /// Fixes that were not live news (older than the live fix, or older than the live window on
    /// arrival): history for the trail, never news of being online. Includes ``olderFixes``.
    package var backlog = 0
    /// Well-formed messages of a type views do not use (`cmd`, `status`, `encrypted`...).
    package var ignored = 0
    /// Ignored messages by `_type` (unknown types as `other`).
    package var ignoredByType: [String: Int] = [:]
    /// Informational fields dropped from accepted messages, by key.
    package var droppedFields: [String: Int] = [:]
    /// Rejected messages by ``MessageRejectionReason/code``: the one tally of the subscriber's
    /// rejections, which the log rule (first of each reason at info) also reads.
    package var rejected = RejectionTally<String>()
    /// Views handed to the publisher.
    package var viewsBuilt = 0
    /// Events handed to the publisher.
    package var events = 0

    /// Creates empty counters.
    package init() {}
}
