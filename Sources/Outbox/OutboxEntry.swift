#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A report waiting in the outbox: everything needed to rebuild the exact wire message.
///
/// The payload is the encoded `LocationMessage` as it was built when the policy reported the fix;
/// the publisher sends it unchanged when it goes out live, and adds `created_at` (and clears the
/// retain flag) when it goes out as backlog.
package struct OutboxEntry: Sendable, Hashable {
    /// The row id: strictly increasing in the order entries were appended.
    package var id: Int64
    /// The MQTT topic the message is published to.
    package var topic: String
    /// The encoded message, byte for byte as built at report time.
    package var payload: Data
    /// The fix's epoch seconds (`tst`), kept beside the payload for ordering and logs.
    package var tst: Int
    /// When the entry was committed to the outbox.
    package var createdAt: Date
    /// The entry's sequence number in the outbox's ``Outbox/epoch``: 1 for the first entry ever
    /// committed to the file, then +1 per entry, never reused (docs/receipts.md). 0 when unknown.
    package var seq: Int64

    /// Creates an entry; `id` and `seq` are assigned by the outbox.
    package init(id: Int64, topic: String, payload: Data, tst: Int, createdAt: Date, seq: Int64 = 0) {
        self.id = id
        self.topic = topic
        self.payload = payload
        self.tst = tst
        self.createdAt = createdAt
        self.seq = seq
    }
}
