import Foundation
import Testing
import EvalKit
import WhereaboutsCore

struct BoundedPolicyTests {
    static let scenarios = ["drive", "turns", "walk", "zigzag", "noise"]

    @Test("bounded keeps the predicted live error within epsilon on synthetic tracks",
          arguments: scenarios, [10.0, 25, 50, 100])
    func boundHolds(scenario: String, epsilon: Double) {
        let track = SyntheticTracks.scenario(scenario, seed: 42)
        let run = Evaluator().evaluate(BoundedPolicy(parameters: .init(epsilon: epsilon)), on: track)
        #expect(run.evaluation.predictError.max <= epsilon)
        // With 16 m of GPS noise a 10 m bound cannot save much; wider bounds must.
        #expect(run.evaluation.reports < (scenario == "noise" && epsilon < 25 ? track.count : track.count / 3))
    }

    @Test("The bound also holds after the filters drop a multipath outlier")
    func outlier() {
        var track = SyntheticTracks.scenario("drive", seed: 7)
        let bad = track[300]
        track[300] = SyntheticTracks.fix(bad.time.timeIntervalSince(SyntheticTracks.start), east: 2_000, north: 2_000)
        var filter = FixFilter()
        let accepted = track.filter { filter.accept($0, now: $0.time) }
        #expect(filter.rejections[.tooFast] == 1)
        let run = Evaluator().evaluate(BoundedPolicy(), on: accepted)
        #expect(run.evaluation.predictError.max <= 50)
    }

    @Test("Trigger letters: f first, v on starting, k on stopping, T after maxSilence, m forced")
    func triggers() {
        var policy = BoundedPolicy(parameters: .init(epsilon: 20, maxSilence: 30))
        var letters: [String] = []
        // 20 s standing still, 100 s driving east at 10 m/s, 60 s standing still again.
        var fixes: [Fix] = (0..<20).map { SyntheticTracks.fix(Double($0), east: 0) }
        fixes += (1...100).map { SyntheticTracks.fix(Double(19 + $0), east: Double($0) * 10) }
        fixes += (1...60).map { SyntheticTracks.fix(Double(119 + $0), east: 1_000) }
        for fix in fixes {
            if let report = policy.consider(fix) { letters.append(report.trigger.rawValue) }
        }
        #expect(letters.first == "f")
        #expect(letters.contains("v"))
        #expect(letters.contains("T"))
        #expect(letters.last == "k")
        #expect(letters.count < 15)
        let forced = policy.forceReport(SyntheticTracks.fix(200, east: 1_000), trigger: .requested)
        #expect(forced.trigger == .requested)
        #expect(forced.velocity == nil)
    }

    @Test("Reports while moving carry the velocity and the maxSilence the bound assumes")
    func velocityOnTheWire() throws {
        var policy = BoundedPolicy(parameters: .init(epsilon: 10, maxSilence: 45))
        let reports = Evaluator.reports(of: &policy, on: SyntheticTracks.straight(count: 60, speed: 8))
        let moving = try #require(reports.first { $0.report.velocity != nil })
        let velocity = try #require(moving.report.velocity)
        #expect(abs(velocity.east - 8) < 0.05 && abs(velocity.north) < 0.05)
        let message = LocationMessage(report: moving.report, tid: "ab", maxSilence: 999)
        #expect(message.ms == 45)
        // A straight constant-speed track needs the first report, one to start moving, and then
        // only the maxSilence reports.
        #expect(reports.count <= 4)
    }

    @Test("A moving report is sent a tenth of epsilon behind the fix along its velocity; a held one from the fix", arguments: [25.0, 50, 100])
    func movingReportLagsBehind(epsilon: Double) throws {
        var policy = BoundedPolicy(parameters: .init(epsilon: epsilon))
        let track = SyntheticTracks.straight(count: 60, speed: 8)
        let reports = Evaluator.reports(of: &policy, on: track)
        let moving = try #require(reports.first { $0.report.velocity != nil })
        let fix = track[moving.index]
        let sent = LocalProjection(origin: Coordinate(latitude: fix.latitude, longitude: fix.longitude))
            .project(Coordinate(latitude: moving.report.fix.latitude, longitude: moving.report.fix.longitude))
        // Eastward at 8 m/s: behind means west, by 0.1 epsilon (the wire keeps 6 decimals, ~0.1 m).
        #expect(abs(sent.east + BoundedPolicy.lag * epsilon) < 0.2, "east offset \(sent.east)")
        #expect(abs(sent.north) < 0.2)
        let first = try #require(reports.first)
        #expect(first.report.velocity == nil)
        #expect(first.report.fix.latitude == track[first.index].latitude && first.report.fix.longitude == track[first.index].longitude)
        // The display still holds every fix, the reported one included.
        let evaluation = Evaluator().evaluate(BoundedPolicy(parameters: .init(epsilon: epsilon)), on: track).evaluation
        #expect(evaluation.predictError.max <= epsilon)
    }

    @Test("Plain dead reckoning keeps the bound too, with more reports than bounded on a stop-and-go track")
    func deadReckoning() {
        let (bounded, plain) = Self.compare(on: SyntheticTracks.scenario("drive", seed: 3))
        #expect(plain.predictError.max <= 50)
        #expect(bounded.reports <= plain.reports)
    }

    /// `bounded` and plain dead reckoning at `epsilon`, measured on `track`.
    static func compare(on track: [Fix], epsilon: Double = 50) -> (bounded: PolicyEvaluation, plain: PolicyEvaluation) {
        let evaluator = Evaluator()
        return (evaluator.evaluate(BoundedPolicy(parameters: .init(epsilon: epsilon)), on: track).evaluation,
                evaluator.evaluate(DeadReckoningPolicy(parameters: .init(epsilon: epsilon)), on: track).evaluation)
    }

    @Test("The bound holds on stop-and-go traffic, and from 50 m on bounded reports only the starts and stops",
          arguments: [25.0, 50, 100])
    func stopAndGo(epsilon: Double) {
        let (bounded, plain) = Self.compare(on: SyntheticTracks.stopAndGo(seed: 5), epsilon: epsilon)
        #expect(bounded.predictError.max <= epsilon)
        // 20 starts and 20 stops (each a jump between 0 and 12 m/s) plus the first report make 41.
        // With issue 12's four estimators bounded needed 50 reports at 50 m against dead
        // reckoning's 60, and under three quarters of them at 25 m; issue 28 removed the 2 s
        // least-squares estimator, which reacted fastest to these jumps, because it did not pay off
        // on corpus datasets it was not chosen on: now 62 against 60 at 50 m, 100 against 101 at
        // 25 m. The bound holds either way.
        #expect(bounded.reports * 100 <= plain.reports * 105)
        if epsilon < 50 { #expect(bounded.reports <= plain.reports) }
    }

    @Test("With heavy GPS noise, bounded needs far fewer reports than plain dead reckoning")
    func noise() {
        // 16 m of noise on a drive: the last-two-fix velocity is mostly noise, and the shadows
        // move bounded to a least-squares line (55 reports against dead reckoning's 80 with the
        // seven estimators; fewer than 0.7 x dead reckoning's with the four since). (The old
        // candidate choice with its loose-band tie-break reached 36 here, but not on the real
        // corpus; 32 and 64 s windows, which would help here, sent more reports on its half A.)
        let (bounded, plain) = Self.compare(on: SyntheticTracks.scenario("noise", seed: 42))
        #expect(bounded.predictError.max <= 50)
        #expect(bounded.reports * 10 < plain.reports * 7)
    }
}

/// `bounded` without some of its rules, as `whereabouts-eval --without` and `--ablate` run it.
struct BoundedRuleTests {
    @Test("A variant is named by the rules it goes without, in the documented order; the policy as documented keeps its name")
    func names() {
        #expect(BoundedPolicy().name == "bounded(50m)")
        #expect(BoundedPolicy(parameters: .init(epsilon: 25, without: [.turn, .lag])).name == "bounded-without-turn+lag(25m)")
    }

    @Test("Rule lists parse; an unknown rule names the ones there are")
    func parse() throws {
        #expect(try BoundedPolicy.Rule.parseList("braking, LAG") == [.braking, .lag])
        #expect(throws: PolicySettingsError.unknownRule("window2")) { try BoundedPolicy.Rule.parseList("window2") }
        #expect(PolicySettingsError.unknownRule("window2").description.contains("turn, braking, lag, experts, measured, window8, hold, turning, turn-lead, parked"))
    }

    @Test("Without any one rule, the bound still holds on a winding, braking track", arguments: BoundedPolicy.Rule.allCases)
    func boundWithout(rule: BoundedPolicy.Rule) {
        // A path that winds and stops: speed 0-12 m/s, heading turning at up to 9°/s.
        var fixes: [Fix] = []
        var east = 0.0, north = 0.0, heading = 0.0
        for second in 0..<900 {
            let speed = max(0, 12 * sin(Double(second) / 90))
            heading += 0.16 * sin(Double(second) / 40)
            east += speed * cos(heading)
            north += speed * sin(heading)
            fixes.append(Fix(time: Date(timeIntervalSince1970: 1_700_000_000 + Double(second) + 0.4),
                             latitude: 52 + north / 111_195, longitude: 13 + east / (111_195 * cos(52 * .pi / 180))))
        }
        var policy = BoundedPolicy(parameters: .init(epsilon: 25, without: [rule]))
        var last: LocationMessage?
        var reports = 0
        for fix in fixes {
            if let report = policy.consider(fix) {
                last = LocationMessage(report: report, tid: "--")
                reports += 1
            }
            guard let last else { continue }
            #expect(Geodesy.distance(last.displayedPosition(at: fix.time), fix.coordinate) <= 25 + 1e-6)
        }
        #expect(reports > 1)
    }
}
