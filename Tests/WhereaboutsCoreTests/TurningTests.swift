import Foundation
import Testing
import EvalKit
@testable import WhereaboutsCore

/// The turning estimator: while it has predicted best, reports carry a turn rate (`tr`) and the
/// display follows an arc.
struct TurningTests {
    /// A glider circling in a thermal: `speed` m/s on a circle of `radius` m whose centre drifts
    /// east at `drift` m/s, one fix every `step` seconds.
    static func circling(count: Int, step: Double, speed: Double = 33, radius: Double = 150, drift: Double = 2) -> [Fix] {
        (0..<count).map { index in
            let t = Double(index) * step
            let angle = speed / radius * t
            return SyntheticTracks.fix(t, east: drift * t + radius * sin(angle), north: radius * (1 - cos(angle)))
        }
    }

    @Test("The turn rate of a steady circle: speed over radius, counter-clockwise positive")
    func turnRate() throws {
        var history = FixHistory(capacity: BoundedPolicy.historyCapacity)
        let fixes = Self.circling(count: 20, step: 1, drift: 0)
        for fix in fixes { history.append(fix) }
        let points = SentFrame.recentPoints(history: history, fix: fixes[fixes.count - 1])
        let rate = try #require(VelocityExperts.turnRate(points: points))
        #expect(abs(rate - 33.0 / 150 * 180 / .pi) < 0.2)
        #expect(VelocityExperts.turnRate(points: Array(points.prefix(2))) == nil)
    }

    @Test("Circling at 1 s and 3 s sampling: the bound holds on the wire, reports carry tr, and bounded needs at most 0.6 x dead reckoning's reports",
          arguments: [1.0, 3.0], [25.0, 50, 100])
    func circlingCostsLess(step: Double, epsilon: Double) {
        let track = Self.circling(count: Int(900 / step), step: step)
        let bounded = Evaluator().evaluate(BoundedPolicy(parameters: .init(epsilon: epsilon)), on: track)
        let plain = Evaluator().evaluate(DeadReckoningPolicy(parameters: .init(epsilon: epsilon)), on: track)
        // The evaluator measures the wire messages (tr rounded to 0.01°/s) with displayedPosition.
        #expect(bounded.evaluation.predictError.max <= epsilon)
        #expect(bounded.reports.contains { $0.message.tr != nil })
        #expect(Double(bounded.evaluation.reports) <= 0.6 * Double(plain.evaluation.reports),
                "bounded \(bounded.evaluation.reports), dead reckoning \(plain.evaluation.reports)")
    }

    @Test("On a straight drive no report carries a turn rate")
    func straight() {
        let track = (0..<600).map { SyntheticTracks.fix(Double($0), east: Double($0) * 12, north: Double($0) * 3) }
        let bounded = Evaluator().evaluate(BoundedPolicy(), on: track)
        #expect(bounded.reports.allSatisfy { $0.message.tr == nil })
    }
}
