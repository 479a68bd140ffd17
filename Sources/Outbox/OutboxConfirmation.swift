#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the outbox stands with receipts (docs/receipts.md): what the stamp of the next published
/// report says, and what the metrics show.
package struct OutboxConfirmation: Sendable, Hashable {
    /// Every sequence number below this one is settled (confirmed, or dropped by the cap): the
    /// smallest `seq` still in the outbox, or the next one to be assigned when it is empty.
    package var settled: Int64
    /// Entries in the outbox (sent or not): reports not confirmed yet.
    package var unconfirmed: Int
    /// When the oldest of them was committed, or `nil` when there is none.
    package var oldestCommitted: Date?
    /// Entries the broker acknowledged that wait for a receipt.
    package var acknowledged: Int
    /// When the oldest of those was acknowledged, or `nil` when there is none.
    package var oldestAcknowledged: Date?

    /// Creates a summary.
    package init(settled: Int64, unconfirmed: Int, oldestCommitted: Date?, acknowledged: Int, oldestAcknowledged: Date?) {
        self.settled = settled
        self.unconfirmed = unconfirmed
        self.oldestCommitted = oldestCommitted
        self.acknowledged = acknowledged
        self.oldestAcknowledged = oldestAcknowledged
    }
}
