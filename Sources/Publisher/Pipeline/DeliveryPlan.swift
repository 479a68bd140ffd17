import Foundation
import Outbox

/// How one outbox entry goes on the wire: live or as backlog.
///
/// An entry goes out **live** (stored payload unchanged, retained as configured) when it is the
/// newest entry, was committed while the current connection was up, and no earlier attempt to send
/// it failed. Anything else is **backlog**: it gets `created_at` (later than `tst`), and only the
/// newest entry is retained, so the retained message is always the newest fix.
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
    init(entry: OutboxEntry, newestID: Int64, connectedSince: Date, retried: Bool, retain: Bool, now: Date = Date()) {
        let isNewest = entry.id >= newestID
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
