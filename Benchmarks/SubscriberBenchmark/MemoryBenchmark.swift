import Subscriber
import Foundation
import Logging
import WhereaboutsCore

/// Measures the subscriber's resident memory per tracked member: a store with `members`
/// devices in circles of 10, each fed `trailLength + 5` fixes (full trail, velocity fields).
enum MemoryBenchmark {
    struct Result {
        var members: Int
        var bytesPerMember: Double
        var wireBytesPerMember: Double
    }

    static func run(members: Int, logger: Logger) async -> Result {
        let circleSize = 10
        var circles: [Circle] = []
        circles.reserveCapacity(members / circleSize)
        for c in 0..<(members / circleSize) {
            let list = (0..<circleSize).map { m in
                Member(user: "user\(c * circleSize + m)", device: "phone", name: "User \(c * circleSize + m)", color: "#e6194b")
            }
            circles.append(Circle(id: "circle-\(c)", name: "Circle \(c)", members: list))
        }
        let file = CirclesFile(circles: circles)
        circles = []
        let settings = ViewSettings()
        let before = residentBytes()
        let store = CircleViewStore(circles: file, settings: settings, logger: logger)
        let t0 = Int(Date().timeIntervalSince1970) - 3600
        let fixes = settings.trailLength + 5
        var wireBytes = 0
        let encoder = JSONEncoder()
        for k in 0..<fixes {
            for m in 0..<members {
                let message = LocationMessage(
                    tid: "u\(m % 10)", tst: t0 + k * 10, lat: 52 + Double(m) * 1e-5 + Double(k) * 1e-4, lon: -8.6 + Double(m) * 1e-5,
                    acc: 5, alt: 12, vel: 36, cog: 90, batt: 80, t: "t", m: 2, ve: 10, vn: 0.5, ms: 60)
                if k == 0, m < 100 { wireBytes += (try? encoder.encode(message).count) ?? 0 }
                await store.apply(.location(message), from: MemberID(user: "user\(m)", device: "phone"), retained: false,
                                  at: Date(timeIntervalSince1970: Double(t0 + k * 10)))
            }
        }
        let after = residentBytes()
        let count = await store.trackedMembers().count
        precondition(count == members)
        return Result(members: members, bytesPerMember: Double(after - before) / Double(members),
                      wireBytesPerMember: Double(wireBytes) / 100)
    }

    /// Resident set size of this process, from /proc/self/statm.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
