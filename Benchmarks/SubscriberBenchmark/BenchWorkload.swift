import Subscriber
import Foundation
import Logging
import WhereaboutsCore
import WhereaboutsMQTT

/// The message stream both subscribers receive: `members` devices in circles of 10, fixes with
/// velocity fields as the publisher sends them.
struct BenchWorkload {
    let members: Int
    let file: CirclesFile

    init(members: Int) {
        self.members = members
        file = CirclesFile(circles: (0..<(members / 10)).map { c in
            Circle(id: "c\(c)", name: "Circle \(c)", members: (0..<10).map { Member(user: "u\(c * 10 + $0)", device: "phone") })
        })
    }

    func topic(_ member: Int) -> String { "owntracks/u\(member)/phone" }

    /// Message `index`: member `index % members` on its own track, one step of 1e-4 degrees
    /// north (11 m) per message, 1 s apart: what a device moving at 40 km/h sends (the subscriber's
    /// implied-speed rule sees a plausible track, as from real devices).
    func payload(_ index: Int, tst: Int) -> Data {
        let member = index % members, step = index / members
        let message = LocationMessage(
            tid: "ph", tst: tst, lat: 52 + Double(member % 100) * 1e-2 + Double(step % 2000) * 1e-4,
            lon: -8.6 + Double(member / 100) * 1e-2, acc: 5,
            alt: 12, vel: 36, cog: 90, batt: 80, t: "t", m: 2, ve: 10, vn: 0.5, ms: 60)
        return try! JSONEncoder().encode(message)
    }

    /// Publishes `count` messages at QoS 1 (not retained), `window` in flight at once. Message `i`
    /// goes to member `i % members` with a `tst` unique for that member.
    func publish(count: Int, with client: MQTTClient, window: Int = 200) async throws {
        let base = Int(Date().timeIntervalSince1970) - count / members - 10
        var next = 0
        while next < count {
            let end = min(next + window, count)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in next..<end {
                    let topic = topic(i % members)
                    let payload = payload(i, tst: base + i / members)
                    group.addTask { try await client.publish(to: topic, payload: payload, qos: .atLeastOnce, retain: false) }
                }
                try await group.waitForAll()
            }
            next = end
        }
    }
}
