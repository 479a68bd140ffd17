#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Outbox

/// The fields a report carries for receipts (docs/receipts.md), added to the JSON object at the
/// moment it is published (after `created_at` for backlog, before sealing with `--secret-file`):
/// `seq`, `seq_epoch`, `seq_settled`, and while receipts are in use `unconfirmed` and
/// `unconfirmed_since`.
struct ReceiptStamp: Sendable, Hashable {
    /// The outbox's epoch.
    var epoch: String
    /// Every sequence number below it is settled.
    var settled: Int64
    /// Reports held unconfirmed, when receipts are in use.
    var unconfirmed: Int?
    /// Epoch seconds when the oldest of them was committed.
    var unconfirmedSince: Int?

    /// The stamp for reports published now, from what the outbox holds; the unconfirmed fields
    /// only when `receiptsInUse`.
    init(epoch: String, confirmation: OutboxConfirmation, receiptsInUse: Bool) {
        self.epoch = epoch
        settled = confirmation.settled
        if receiptsInUse {
            unconfirmed = confirmation.unconfirmed
            unconfirmedSince = confirmation.oldestCommitted.map { Int($0.timeIntervalSince1970.rounded(.down)) }
        }
    }

    /// `payload` (a JSON object) with the stamp of report `seq` added before its closing brace;
    /// unchanged when it is not a JSON object (nothing the publisher stores) or `seq` is unknown.
    func apply(to payload: Data, seq: Int64) -> Data {
        guard seq > 0, let close = payload.lastIndex(of: UInt8(ascii: "}")),
              payload.first == UInt8(ascii: "{") else { return payload }
        // The epoch is hexadecimal (the outbox draws it), so it needs no escaping.
        var fields = "\"seq\":\(seq),\"seq_epoch\":\"\(epoch)\",\"seq_settled\":\(min(settled, seq))"
        if let unconfirmed {
            fields += ",\"unconfirmed\":\(unconfirmed)"
            if let unconfirmedSince { fields += ",\"unconfirmed_since\":\(unconfirmedSince)" }
        }
        let isEmpty = payload[payload.index(after: payload.startIndex)..<close].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        var stamped = Data(payload[..<close])
        stamped.reserveCapacity(payload.count + fields.utf8.count + 1)
        if !isEmpty { stamped.append(UInt8(ascii: ",")) }
        stamped.append(contentsOf: fields.utf8)
        stamped.append(contentsOf: payload[close...])
        return stamped
    }
}
