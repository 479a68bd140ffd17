import Foundation
import Testing
import EvalKit
import WhereaboutsCore

struct SeedPolicyTests {
    func reportedIndices<P: ReportingPolicy>(_ policy: inout P, _ track: [Fix]) -> [Int] {
        Evaluator.reports(of: &policy, on: track).map(\.index)
    }

    @Test("Slow movement reports every minFilter metres, the first fix always")
    func slowByDistance() {
        var policy = SeedPolicy()
        // 1.01 m/s walk, no speed from the source: speed comes from the previous fix.
        let track = SyntheticTracks.straight(count: 160, speed: 1.01)
        #expect(reportedIndices(&policy, track) == [0, 50, 100, 150])
        #expect(policy.filter == 50)
    }

    @Test("Fast movement sets filter = floor(v + 0.5) * minInterval: one report per minInterval")
    func fastByTime() {
        var policy = SeedPolicy()
        let track = SyntheticTracks.straight(count: 45, speed: 10.4, reportSpeed: true)
        let first = policy.consider(track[0])
        #expect(first?.trigger == .firstPublish)
        #expect(first?.velocity == nil)
        #expect(policy.filter == 100)  // floor(10.4 + 0.5) * 10
        var reported: [Int] = [0]
        for (index, fix) in track.enumerated().dropFirst() where policy.consider(fix) != nil { reported.append(index) }
        // 10.4 m/s against a 100 m filter: reports when >= 100 m, i.e. every 10 fixes (104 m).
        #expect(reported == [0, 10, 20, 30, 40])
    }

    @Test("10 % hysteresis: a speed within 10 % of filter / minInterval keeps the filter")
    func hysteresis() {
        var policy = SeedPolicy()
        _ = policy.forceReport(SyntheticTracks.fix(0, east: 0, speed: 10), trigger: .requested)
        #expect(policy.filter == 100)
        _ = policy.forceReport(SyntheticTracks.fix(1, east: 10, speed: 10.9), trigger: .requested)
        #expect(policy.filter == 100)  // |10 - 10.9| / 10 = 0.09
        _ = policy.forceReport(SyntheticTracks.fix(2, east: 20, speed: 11.2), trigger: .requested)
        #expect(policy.filter == 110)  // 12 % off: floor(11.7) * 10
    }

    @Test("Below minSpeed the filter returns to minFilter only when it differs by more than 0.1 m",
          arguments: [(10.01, 50.05, 50.05), (10.05, 50.25, 50.0)])
    func smallChangeRule(minInterval: Double, filterAfterFast: Double, filterAfterSlow: Double) {
        var policy = SeedPolicy(parameters: .init(minInterval: minInterval))
        _ = policy.forceReport(SyntheticTracks.fix(0, east: 0, speed: 8), trigger: .requested)
        _ = policy.forceReport(SyntheticTracks.fix(1, east: 8, speed: 5), trigger: .requested)
        #expect(abs(policy.filter - filterAfterFast) < 1e-9)
        _ = policy.forceReport(SyntheticTracks.fix(2, east: 9, speed: 1), trigger: .requested)
        #expect(abs(policy.filter - filterAfterSlow) < 1e-9)
    }
}
