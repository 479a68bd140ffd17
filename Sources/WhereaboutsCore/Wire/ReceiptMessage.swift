#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A subscriber's receipt for one device (docs/receipts.md): every report of epoch ``epoch`` with a
/// sequence number up to ``seq`` is durably taken in. Without ``seq`` (and ``epoch``) it is an
/// announcement: "I confirm this device's reports", with nothing confirmed yet.
///
/// Published retained, QoS 1, plain JSON, on
/// `whereabouts/receipts/<user>/<device>/<subscriber id>` (``ReceiptTopic``).
public struct ReceiptMessage: Codable, Sendable, Hashable {
    /// Always `receipt`.
    public var type: String = "receipt"
    /// The publisher's outbox epoch the sequence number belongs to.
    public var epoch: String?
    /// The highest sequence number up to which every report of the epoch is taken in.
    public var seq: Int64?
    /// When the receipt was made, epoch seconds.
    public var tst: Int

    /// Creates a receipt, or an announcement when `epoch` and `seq` are `nil`.
    public init(epoch: String? = nil, seq: Int64? = nil, tst: Int) {
        self.epoch = epoch
        self.seq = seq
        self.tst = tst
    }

    /// Whether it confirms nothing yet (an announcement).
    var isAnnouncement: Bool { epoch == nil || seq == nil }

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case epoch = "seq_epoch"
        case seq, tst
    }
}

/// Where receipts are published: `whereabouts/receipts/<user>/<device>/<subscriber id>`.
///
/// Outside `owntracks/#` on purpose: the OwnTracks Recorder and Home Assistant subscribe to it and
/// would log every receipt as an unknown message.
public enum ReceiptTopic {
    /// The root of every receipt topic.
    public static let root = "whereabouts/receipts"

    /// The levels after the first of a device's base topic: `eve/phone` for `owntracks/eve/phone`.
    public static func deviceLevels(ofBase base: String) -> String {
        guard let slash = base.firstIndex(of: "/") else { return base }
        return String(base[base.index(after: slash)...])
    }

    /// The receipt topic of subscriber `subscriber` for the device `user`/`device`.
    public static func topic(user: String, device: String, subscriber: String) -> String {
        "\(root)/\(user)/\(device)/\(subscriberLevel(subscriber))"
    }

    /// A subscriber id as one topic level: `/`, `+`, `#` (and an empty id) made safe.
    static func subscriberLevel(_ id: String) -> String {
        let safe = String(id.map { "/+#".contains($0) ? "_" : $0 })
        return safe.isEmpty ? "_" : safe
    }
}
