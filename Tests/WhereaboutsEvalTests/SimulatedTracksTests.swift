import EvalKit
import Foundation
import PositionSources
import Testing
import WhereaboutsCore

/// `bounded` on the simulator's hour-long tracks: walking, cycling, driving with stops and
/// lights, standing still with jitter, and multipath outliers (which the filters drop).
struct SimulatedTracksTests {
    static func evaluate(_ scenario: SimulationScenario, seed: UInt64, epsilon: Double) -> TrackEvaluation {
        let fixes = Array(Simulator(options: SimulatorOptions(scenario: scenario, seed: seed)))
        let policies = PolicySettings().makePolicies([.seed, .deadReckoning, .bounded], epsilons: [epsilon])
        return TrackEvaluation.evaluate(name: scenario.rawValue, fixes: fixes, policies: policies)
    }

    @Test("bounded keeps its bound on every simulated scenario", arguments: SimulationScenario.allCases, [25.0, 50])
    func boundHolds(scenario: SimulationScenario, epsilon: Double) throws {
        let evaluation = Self.evaluate(scenario, seed: 11, epsilon: epsilon)
        let bounded = try #require(evaluation.runs.last?.evaluation)
        let plain = try #require(evaluation.runs.dropLast().last?.evaluation)
        #expect(bounded.policy == "bounded(\(Int(epsilon))m)")
        #expect(bounded.predictError.max <= epsilon)
        #expect(plain.predictError.max <= epsilon)
        // Standing still, bounded holds and so never drifts; dead reckoning sends the jitter as a
        // velocity and keeps paying for it. (The few bounded reports are jitter and multipath
        // outliers of 80-100 m, which pass the 100 m/s speed filter at 1 Hz.)
        // On the spikes scenario at 25 m bounded needs 190 reports against dead reckoning's 184
        // since issue 28 removed the 2 s least-squares estimator (it did not pay off on corpus
        // datasets it was not chosen on): within 5 % there, fewer everywhere else.
        if scenario == .still {
            #expect(bounded.reports * 3 < plain.reports)
        } else if scenario == .spikes {
            #expect(bounded.reports * 100 <= plain.reports * 105)
        } else {
            #expect(bounded.reports < plain.reports)
        }
        print("simulated \(scenario.rawValue) eps \(epsilon): rejected \(evaluation.filterRejections.total), " +
              evaluation.runs.map { "\($0.evaluation.policy) \($0.evaluation.reports)" }.joined(separator: ", "))
    }
}
