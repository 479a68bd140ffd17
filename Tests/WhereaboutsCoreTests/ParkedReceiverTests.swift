import Foundation
import Testing
import EvalKit
import WhereaboutsCore

/// Issue 12, item 4: a parked receiver costs few reports. Shaped as the corpus's moored boat
/// (`signalk-unknown-gps-log-moored`, a Signal K log): 20 minutes at 1 Hz, every fix with a
/// Doppler speed of 0.15-0.3 m/s and the same frozen course, the position wandering by a few
/// metres. Before the parked-speed rule bounded sent its first report with that velocity and
/// then paid `T` and `t` reports (6 at 25 m where dead reckoning sent 1).
struct ParkedReceiverTests {
    static func parked(seconds: Int = 1_200) -> [Fix] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let projection = LocalProjection(origin: Coordinate(latitude: 52.372025, longitude: 4.909630))
        var east = 0.0, north = 0.0
        return (0..<seconds).map { second in
            // A slow random walk held within a few metres of the mooring, plus fix noise.
            east = 0.98 * east + (random() - 0.5) * 1.5
            north = 0.98 * north + (random() - 0.5) * 1.5
            let point = projection.unproject(east: east + (random() - 0.5) * 2, north: north + (random() - 0.5) * 2)
            return Fix(
                time: Date(timeIntervalSince1970: 1_396_515_251 + Double(second)), latitude: point.latitude,
                longitude: point.longitude, horizontalAccuracy: 5, speed: 0.15 + 0.15 * random(), course: 251.3
            )
        }
    }

    @Test("A parked receiver's Doppler noise costs bounded no more reports than dead reckoning", arguments: [25.0, 50, 100])
    func parkedReceiver(epsilon: Double) {
        let track = Self.parked()
        let bounded = Evaluator().evaluate(BoundedPolicy(parameters: .init(epsilon: epsilon)), on: track)
        let dead = Evaluator().evaluate(DeadReckoningPolicy(parameters: .init(epsilon: epsilon)), on: track)
        #expect(bounded.evaluation.predictError.max <= epsilon)
        #expect(bounded.evaluation.reports <= max(2, dead.evaluation.reports), "bounded \(bounded.evaluation.reports), dead reckoning \(dead.evaluation.reports)")
        // The first report holds: the receiver's speed is noise, not motion.
        #expect(bounded.reports.first?.report.velocity == nil)
    }

    @Test("From walking pace on the receiver's velocity is sent again")
    func walking() throws {
        let projection = LocalProjection(origin: Coordinate(latitude: 52.372025, longitude: 4.909630))
        let track = (0..<60).map { second in
            let point = projection.unproject(east: 1.4 * Double(second), north: 0)
            return Fix(time: Date(timeIntervalSince1970: 1_396_515_251 + Double(second)), latitude: point.latitude,
                       longitude: point.longitude, horizontalAccuracy: 5, speed: 1.4, course: 90)
        }
        var policy = BoundedPolicy(parameters: .init(epsilon: 25))
        let considered = policy.consider(track[0])
        let first = try #require(considered)
        let velocity = try #require(first.velocity)
        #expect(abs(velocity.east - 1.4) < 0.01)
        // The measured walk is extrapolated exactly: no further report in the minute.
        var later = 0
        for fix in track.dropFirst() where policy.consider(fix) != nil { later += 1 }
        #expect(later == 0)
    }
}
