import Foundation
import Testing
import EvalKit
@testable import WhereaboutsCore

/// The offline optimum: never more reports than dead reckoning, always within the bound, and
/// truly the fewest (checked against an exhaustive search on short tracks).
struct OfflineOptimumTests {
    /// Every `predict` error of `reports` on `track`, as the evaluator measures it.
    static func maxError(_ reports: [(index: Int, report: Report)], on track: [Fix]) -> Double {
        let run = Evaluator().measure(
            policy: "x",
            reports: reports.map { EvaluatedReport(index: $0.index, report: $0.report, message: WireCost().message(for: $0.report)) },
            on: track
        )
        return run.evaluation.predictError.max
    }

    @Test("Within the bound and never above dead reckoning on the seeded scenarios", arguments: ["drive", "walk", "turns", "zigzag", "noise"])
    func boundAndBaseline(scenario: String) {
        let track = SyntheticTracks.scenario(scenario, seed: 7)
        for epsilon in [10.0, 50] {
            let optimum = OfflineOptimum.reports(on: track, epsilon: epsilon, maxSilence: 120)
            var deadReckoning = DeadReckoningPolicy(parameters: .init(epsilon: epsilon, maxSpeed: nil))
            let baseline = Evaluator.reports(of: &deadReckoning, on: track)
            #expect(optimum.first?.index == 0)
            #expect(optimum.count <= baseline.count)
            #expect(Self.maxError(optimum, on: track) <= epsilon)
            #expect(zip(optimum, optimum.dropFirst()).allSatisfy { $0.index < $1.index })
        }
    }

    @Test("A turn: reporting early at the corner beats dead reckoning's greedy choice")
    func strictlyBetterThanGreedy() {
        // 5 m/s east for 30 s, then north; the fix just before the corner has a stale velocity.
        var fixes: [Fix] = []
        for second in 0...60 {
            let t = Double(second)
            fixes.append(second <= 30 ? SyntheticTracks.fix(t, east: 5 * t) : SyntheticTracks.fix(t, east: 150, north: 5 * (t - 30)))
        }
        let optimum = OfflineOptimum.reports(on: fixes, epsilon: 10, maxSilence: 120)
        var deadReckoning = DeadReckoningPolicy(parameters: .init(epsilon: 10, maxSpeed: nil))
        let baseline = Evaluator.reports(of: &deadReckoning, on: fixes)
        #expect(optimum.count <= baseline.count)
        #expect(Self.maxError(optimum, on: fixes) <= 10)
    }

    @Test("The fewest reports: equal to an exhaustive search on short noisy tracks", arguments: [1, 2, 3, 4, 5, 6])
    func exhaustive(seed: UInt64) {
        let track = Array(SyntheticTracks.scenario("zigzag", seed: seed).prefix(14)).enumerated().map { i, fix in
            // Thin the 1 Hz track to 5 s steps so that reports are worth choosing.
            var copy = fix
            copy.time = SyntheticTracks.start.addingTimeInterval(Double(i) * 5)
            return copy
        }
        let epsilon = 8.0
        let optimum = OfflineOptimum.reports(on: track, epsilon: epsilon, maxSilence: 30)
        // Every subset that contains fix 0, smallest first.
        var best = track.count
        for mask in 0..<(1 << (track.count - 1)) {
            let chosen = [0] + (1..<track.count).filter { mask & (1 << ($0 - 1)) != 0 }
            guard chosen.count < best else { continue }
            var guardian = PredictionGuard(epsilon: epsilon, maxSilence: 30)
            var feasible = true
            for (i, fix) in track.enumerated() {
                if chosen.contains(i) {
                    _ = guardian.report(fix, trigger: .moving, velocity: i > 0 ? fix.impliedVelocity(from: track[i - 1]) : nil)
                } else if guardian.trigger(for: fix) != nil {
                    feasible = false
                    break
                }
            }
            if feasible { best = chosen.count }
        }
        #expect(optimum.count == best)
    }

    @Test("No report carries a velocity above maxSpeed")
    func velocityCap() {
        var track = SyntheticTracks.straight(count: 60, speed: 10)
        // A 600 m jump that stays: the implied velocity is 600 m/s for one step.
        track = track.enumerated().map { i, fix in i < 30 ? fix : SyntheticTracks.fix(Double(i), east: 600 + Double(i) * 10) }
        let optimum = OfflineOptimum.reports(on: track, epsilon: 20, maxSilence: 120, maxSpeed: 50)
        #expect(optimum.allSatisfy { ($0.report.velocity?.speed ?? 0) <= 50 })
        #expect(Self.maxError(optimum, on: track) <= 20)
    }
}
