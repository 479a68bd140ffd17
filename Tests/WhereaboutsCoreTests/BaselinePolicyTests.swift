import Foundation
import Testing
import EvalKit
import WhereaboutsCore

struct BaselinePolicyTests {
    @Test("interval reports every N seconds")
    func interval() {
        var policy = IntervalPolicy(parameters: .init(interval: 5))
        let indices = Evaluator.reports(of: &policy, on: SyntheticTracks.straight(count: 12, speed: 3)).map(\.index)
        #expect(indices == [0, 5, 10])
        #expect(policy.name == "interval(5s)")
    }

    @Test("distance reports every N metres")
    func distance() {
        var policy = DistancePolicy(parameters: .init(distance: 20))
        let indices = Evaluator.reports(of: &policy, on: SyntheticTracks.straight(count: 12, speed: 7)).map(\.index)
        #expect(indices == [0, 3, 6, 9])
    }

    @Test("significant needs both 500 m and 5 minutes")
    func significant() {
        var policy = SignificantPolicy()
        // 1 fix a minute at 5 m/s (300 m a minute): 5 minutes = 1500 m, so time decides.
        let fast = SyntheticTracks.straight(count: 11, speed: 5, step: 60)
        #expect(Evaluator.reports(of: &policy, on: fast).map(\.index) == [0, 5, 10])
        // 1 m/s: 500 m takes 500 s, so distance decides (fix 9 = 540 m).
        var slowPolicy = SignificantPolicy()
        let slow = SyntheticTracks.straight(count: 19, speed: 1, step: 60)
        #expect(Evaluator.reports(of: &slowPolicy, on: slow).map(\.index) == [0, 9, 18])
    }

    @Test("Every policy kind parses from its name, and bad names and values name the flag")
    func settings() throws {
        #expect(try PolicyKind.parseList("seed, bounded,dead-reckoning") == [.seed, .bounded, .deadReckoning])
        #expect(throws: PolicySettingsError.unknownPolicy("fast")) { try PolicyKind.parseList("seed,fast") }
        #expect(try PolicySettings.parseNumbers("25,50,100", parameter: "epsilon") == [25, 50, 100])
        #expect(throws: PolicySettingsError.self) { try PolicySettings.parseNumbers("25,x", parameter: "epsilon") }
        var settings = PolicySettings()
        settings.bounded.epsilon = -1
        #expect(throws: PolicySettingsError.notPositive(parameter: "epsilon", value: -1)) { try settings.validate() }
        let names = PolicySettings().makePolicies(PolicyKind.allCases, epsilons: [25, 50]).map(\.name)
        #expect(names == ["seed", "interval(10s)", "distance(50m)", "significant", "dead-reckoning(25m)", "dead-reckoning(50m)", "bounded(25m)", "bounded(50m)", "owntracks-move", "traccar"])
    }
}
