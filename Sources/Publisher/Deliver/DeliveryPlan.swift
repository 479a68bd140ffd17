#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Outbox

/// How one outbox entry goes on the wire: live or as backlog.
///
/// An entry goes out **live** (stored payload unchanged, retained as configured) when it is the
/// newest entry, was committed while the current connection was up, and no earlier attempt to send
/// it failed. Anything else is **backlog**: it gets `created_at` (later than `tst`), and only the
/// newest entry is retained, so the retained message is always the newest fix.
///
/// Entries on other topics than the location topic (`transition` messages on `<base>/event`) are
/// never retained and never count as the newest fix; as backlog they get `created_at` too.
struct DeliveryPlan: Sendable, Hashable {
    /// The bytes to publish.
    var payload: Data
    /// Whether to publish with the retain flag.
    var retain: Bool
    /// Whether the entry goes out as backlog.
    var isBacklog: Bool

    /// Plans the delivery of `entry`.
    ///
    /// - Parameters:
    ///   - newestID: The id of the newest entry in the outbox now.
    ///   - connectedSince: When the current connection came up.
    ///   - retried: Whether an earlier attempt to send this entry failed.
    ///   - retain: The configured retain flag for live messages.
    ///   - locationTopic: The location topic; `nil` treats every entry as a location.
    ///   - retainedTST: The `tst` of the newest report already acknowledged as retained, if any:
    ///     an entry older than it is never retained (a report sent again after a receipt did not
    ///     come must not replace a newer retained fix; docs/receipts.md).
    init(
        entry: OutboxEntry, newestID: Int64, connectedSince: Date, retried: Bool, retain: Bool,
        locationTopic: String? = nil, retainedTST: Int? = nil, now: Date = Date()
    ) {
        if let locationTopic, entry.topic != locationTopic {
            let live = entry.createdAt >= connectedSince && !retried
            payload = live ? entry.payload : ReportEncoder.backlogPayload(entry.payload, tst: entry.tst, now: now)
            self.retain = false
            isBacklog = !live
            return
        }
        let isNewest = entry.id >= newestID && entry.tst >= (retainedTST ?? Int.min)
        let live = isNewest && entry.createdAt >= connectedSince && !retried
        if live {
            payload = entry.payload
            self.retain = retain
            isBacklog = false
        } else {
            payload = ReportEncoder.backlogPayload(entry.payload, tst: entry.tst, now: now)
            self.retain = retain && isNewest
            isBacklog = true
        }
    }
}
