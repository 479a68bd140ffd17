import Foundation

/// The receipt stamp Whereabouts' publisher adds to each report (docs/receipts.md): its sequence
/// number in the epoch of the publisher's outbox, what is settled below it, and how many reports
/// the publisher holds unconfirmed.
struct ReportStamp: Sendable, Hashable {
    /// The report's sequence number (1 or more).
    var seq: Int64
    /// The publisher's outbox epoch (at most 32 characters).
    var epoch: String
    /// Every sequence number below it is settled (confirmed or dropped): nothing to wait for.
    var settled: Int64
    /// Reports the publisher held unconfirmed when it sent this one, when receipts are in use.
    var unconfirmed: Int?
    /// Epoch seconds when the oldest of them was committed.
    var unconfirmedSince: Int?

    /// The stamp of a parsed payload; `nil` without one (any other sender) or when it is unusable.
    // Borrowed: an initializer's argument is owned by default, which copied the whole parsed
    // payload (forty-odd optionals) per message only to read five of them.
    init?(_ wire: borrowing WirePayload) {
        guard let seq = wire.seq, seq.isFinite, seq >= 1, seq < 9e15, seq == seq.rounded(),
              let epoch = wire.seqEpoch, !epoch.isEmpty, epoch.utf8.count <= 32 else { return nil }
        self.seq = Int64(seq)
        self.epoch = epoch
        if let settled = wire.seqSettled, settled.isFinite, settled >= 1, settled <= seq {
            self.settled = Int64(settled)
        } else {
            self.settled = 1
        }
        if let count = wire.unconfirmed, count.isFinite, count >= 0, count < 1e9 { unconfirmed = Int(count) }
        if let since = wire.unconfirmedSince, since.isFinite, since >= 0, since < 4e9 { unconfirmedSince = Int(since) }
    }

    /// The stamp of a payload that was rejected (read again on that rare path), or `nil`.
    static func read(_ payload: some Collection<UInt8>) -> ReportStamp? {
        let bytes = Array(payload)
        guard let wire = try? bytes.withUnsafeBufferPointer({ buffer throws(MessageRejectionReason) in try WirePayload(parsing: buffer) })
        else { return nil }
        return ReportStamp(wire)
    }
}
