import Foundation
import Testing
import EvalKit
import WhereaboutsCore

/// A gap in the track longer than the 128 s the estimators' history once reached back
/// (`SentFrame.reach`): across it, the last two fixes' velocity is the mean velocity over the gap,
/// as dead reckoning sends it, not a hold.
struct TrackGapTests {
    /// 60 s driving east at 10 m/s (1 Hz), then 200 s without fixes (a logger pausing, a tunnel)
    /// while the vehicle turns north and drives on at 8 m/s, then 60 s more at 8 m/s north (1 Hz).
    static let gapSeconds = 200.0
    static let track: [Fix] = {
        var fixes = (0..<60).map { SyntheticTracks.fix(Double($0), east: Double($0) * 10) }
        let resume = 59 + gapSeconds
        fixes += (0..<60).map { SyntheticTracks.fix(resume + Double($0), east: 590, north: (gapSeconds + Double($0)) * 8) }
        return fixes
    }()

    @Test("The report after a gap longer than 128 s carries the velocity across the gap, and the bound holds",
          arguments: [120, 1_000_000])
    func velocityAcrossGap(maxSilence: Int) throws {
        var policy = BoundedPolicy(parameters: .init(epsilon: 50, maxSilence: maxSilence))
        let reports = Evaluator.reports(of: &policy, on: Self.track)
        let afterGap = try #require(reports.first { $0.index == 60 }, "no report at the first fix after the gap")
        let velocity = try #require(afterGap.report.velocity, "the report after the gap holds")
        // 1,600 m north (and none east) in 200 s: 8 m/s north, within the wire's rounding and the
        // frame's projection.
        #expect(abs(velocity.north - 8) < 0.05 && abs(velocity.east) < 0.05, "velocity \(velocity)")
        // With that velocity the 60 s after the gap need no report at all.
        #expect(!reports.contains { $0.index > 60 }, "reports after the gap: \(reports.map(\.index))")
        let run = Evaluator().evaluate(BoundedPolicy(parameters: .init(epsilon: 50, maxSilence: maxSilence)), on: Self.track)
        #expect(run.evaluation.predictError.max <= 50)
    }

    @Test("With every rule off, bounded reports exactly where dead reckoning does across the gap")
    func allRulesOffIsDeadReckoning() {
        let all = Set(BoundedPolicy.Rule.allCases)
        var bounded = BoundedPolicy(parameters: .init(epsilon: 50, maxSilence: 1_000_000, without: all))
        var plain = DeadReckoningPolicy(parameters: .init(epsilon: 50, maxSilence: 1_000_000))
        let ours = Evaluator.reports(of: &bounded, on: Self.track).map(\.index)
        let theirs = Evaluator.reports(of: &plain, on: Self.track).map(\.index)
        #expect(ours == theirs)
        #expect(theirs.count == 3, "dead reckoning's reports: \(theirs)")
    }
}
