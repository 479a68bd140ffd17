import Foundation
import WhereaboutsCore

/// What one location report costs on the wire: the JSON payload exactly as `LocationMessage`
/// encodes it, inside an MQTT 3.1.1 PUBLISH packet at QoS 1.
///
/// The PUBLISH overhead is the fixed header (1 byte of type and flags plus 1 to 4 bytes of
/// remaining length), the topic (2 length bytes plus the topic's UTF-8 bytes) and the 2-byte
/// packet identifier that QoS 1 needs. TCP, IP and TLS framing and the 4-byte PUBACK coming back
/// are not counted.
package struct WireCost: Sendable {
    /// The topic the messages are published on; its length is part of every packet.
    package var topic: String
    /// The tracker id put in every message.
    package var tid: String
    private let encoder = JSONEncoder()

    /// Creates a cost model for messages published on `topic` (default `owntracks/user/device`,
    /// the shape of a real topic) with tracker id `tid`.
    package init(topic: String = "owntracks/user/device", tid: String = "wb") {
        self.topic = topic
        self.tid = tid
    }

    /// The wire message for `report`, rounded exactly as the publisher sends it.
    package func message(for report: Report) -> LocationMessage {
        LocationMessage(report: report, tid: tid, maxSilence: report.maxSilence)
    }

    /// The JSON payload size of `message` in bytes.
    package func payloadSize(of message: LocationMessage) -> Int {
        (try? encoder.encode(message).count) ?? 0
    }

    /// The size in bytes of a QoS 1 PUBLISH packet carrying `payloadSize` bytes on ``topic``.
    package func packetSize(payloadSize: Int) -> Int {
        let remaining = 2 + topic.utf8.count + 2 + payloadSize
        return 1 + Self.remainingLengthBytes(remaining) + remaining
    }

    /// How many bytes MQTT's variable-length encoding takes for `length` (1 to 4).
    static func remainingLengthBytes(_ length: Int) -> Int {
        switch length {
        case ..<128: 1
        case ..<16_384: 2
        case ..<2_097_152: 3
        default: 4
        }
    }
}
