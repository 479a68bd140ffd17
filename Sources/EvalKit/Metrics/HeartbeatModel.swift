import Foundation
import WhereaboutsCore

/// The publisher's heartbeat as the evaluator counts it: whenever nothing was sent for
/// ``interval`` seconds, the publisher sends a small online presence on `<base>/presence`
/// (docs/publisher.md, "Honest presence"), and that message wakes the radio like a report.
///
/// The clock starts at the track's first fix (the publisher promises the first heartbeat when it
/// connects); each report moves the next heartbeat to `interval` after it, each heartbeat to
/// `interval` after itself. A report due at the very second a heartbeat is due wins (no heartbeat).
package struct HeartbeatModel: Sendable, Hashable {
    /// Seconds of silence after which a heartbeat goes out: `--heartbeat`, 900 by default as in
    /// the publisher.
    package var interval: Double
    /// The MQTT PUBLISH packet of one heartbeat in bytes: the presence payload
    /// `{"_type":"lwt","due":…,"since":…,"state":"online","tst":…}` (10-digit epochs) on
    /// `<topic>/presence`, at QoS 1.
    package var packetSize: Int

    /// The publisher's default interval, seconds.
    package static let defaultInterval = 900.0

    /// A heartbeat every `interval` seconds of silence, sized for `wire`'s topic.
    package init(interval: Double = HeartbeatModel.defaultInterval, wire: WireCost = WireCost()) {
        self.interval = interval
        let epoch = 1_700_000_000
        let payload = (try? JSONEncoder().encode(PresenceMessage(state: .online, since: epoch, tst: epoch, due: epoch + Int(interval))))?.count ?? 0
        packetSize = WireCost(topic: wire.topic + "/presence", tid: wire.tid).packetSize(payloadSize: payload)
    }

    /// The heartbeat times over a track from `start` to `end`, given the times messages were
    /// sent (`sent`, ascending).
    package func heartbeats(from start: Date, to end: Date, sent: [Date]) -> [Date] {
        guard interval > 0, end > start else { return [] }
        var beats: [Date] = []
        var last = start
        for time in sent {
            while last.addingTimeInterval(interval) < time {
                last = last.addingTimeInterval(interval)
                beats.append(last)
            }
            last = max(last, time)
        }
        while last.addingTimeInterval(interval) <= end {
            last = last.addingTimeInterval(interval)
            beats.append(last)
        }
        return beats
    }
}
