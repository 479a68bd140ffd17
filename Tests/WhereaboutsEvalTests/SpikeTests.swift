import EvalKit
import Foundation
@testable import PositionSources
import Testing
import WhereaboutsCore

/// The simulator's `spikes` scenario (kilometre-long spikes, tunnels ending in true jumps)
/// through the rejection filters and the predicting policies: no spike is accepted, so none is
/// reported; every jump is taken within about half a minute; no report carries a velocity above
/// `maxSpeed`.
struct SpikeTests {
    /// An hour of the `spikes` scenario, each fix with whether it is a spike.
    static func track(seed: UInt64) -> [(fix: Fix, spike: Bool)] {
        var simulator = Simulator(options: SimulatorOptions(scenario: .spikes, seed: seed))
        var fixes: [(Fix, Bool)] = []
        while let fix = simulator.next() { fixes.append((fix, simulator.lastFixIsSpike)) }
        return fixes
    }

    @Test("No spike passes the filters; the true track does, jumps included", arguments: [1, 2, 3, 4] as [UInt64])
    func filters(seed: UInt64) throws {
        let track = Self.track(seed: seed)
        #expect(track.filter(\.spike).count > 30)
        var filter = FixFilter()
        var accepted: [Fix] = []
        var spikesAccepted = 0
        for (fix, spike) in track where filter.accept(fix, now: fix.time) {
            accepted.append(fix)
            if spike { spikesAccepted += 1 }
        }
        #expect(spikesAccepted == 0)
        // Every tunnel ends in a jump the filter takes: by agreement after 30 s at the latest, or
        // sooner, once the implied speed from the held position falls below maxSpeed.
        let gaps = zip(accepted, accepted.dropFirst()).map { $1.time.timeIntervalSince($0.time) }
        #expect(try #require(gaps.max()) <= 35)
        #expect(accepted.last?.time == track.last { !$0.spike }?.fix.time)
        // Little but the spikes and some seconds after each jump is lost.
        #expect(accepted.count >= track.count - track.filter(\.spike).count - 80)
    }

    @Test("Policies on the spiky track: bound held, no velocity above --max-speed, no spike reported", arguments: [25.0, 50])
    func policies(epsilon: Double) throws {
        let track = Self.track(seed: 9)
        let spikes = Set(track.filter(\.spike).map(\.fix.time))
        let evaluation = TrackEvaluation.evaluate(
            name: "spikes", fixes: track.map(\.fix),
            policies: PolicySettings().makePolicies([.deadReckoning, .bounded], epsilons: [epsilon]),
            optimum: [DeadReckoningPolicy.Parameters(epsilon: epsilon)]
        )
        for run in evaluation.runs + evaluation.optimumRuns {
            #expect(run.evaluation.predictError.max <= epsilon, "\(run.evaluation.policy)")
            #expect(run.reports.allSatisfy { ($0.report.velocity?.speed ?? 0) <= FixFilter.Settings.defaultMaxSpeed })
            #expect(!run.reports.contains { spikes.contains($0.report.fix.time) })
        }
    }
}
