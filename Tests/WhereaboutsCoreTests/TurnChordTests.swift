import Foundation
import Testing
@testable import WhereaboutsCore

struct TurnChordTests {
    /// A glider circling in a thermal: `speed` m/s on a circle of `radius` m whose centre drifts
    /// east at `drift` m/s, one fix every `step` seconds.
    static func circling(count: Int, step: Double, speed: Double = 33, radius: Double = 150, drift: Double = 2) -> [Fix] {
        (0..<count).map { index in
            let t = Double(index) * step
            let angle = speed / radius * t
            return SyntheticTracks.fix(t, east: drift * t + radius * sin(angle), north: radius * (1 - cos(angle)))
        }
    }

    /// A 90° corner taken in 3 s at 10 m/s between two straight legs.
    static func corner() -> [Fix] {
        var fixes: [Fix] = (0...30).map { SyntheticTracks.fix(Double($0), east: Double($0) * 10) }
        let radius = 10 / (Double.pi / 2 / 3)
        fixes += (1...3).map { second in
            let angle = Double(second) * .pi / 6
            return SyntheticTracks.fix(Double(30 + second), east: 300 + radius * sin(angle), north: radius * (1 - cos(angle)))
        }
        fixes += (1...30).map { SyntheticTracks.fix(Double(33 + $0), east: 300 + radius, north: radius + Double($0) * 10) }
        return fixes
    }

    static func points(_ fixes: [Fix]) -> [SentFrame.Point] {
        var history = FixHistory(capacity: BoundedPolicy.historyCapacity)
        for fix in fixes { history.append(fix) }
        return SentFrame.recentPoints(history: history, fix: fixes[fixes.count - 1])
    }

    @Test("While circling, the chord's position is a quarter of epsilon off the fix and its speed below the flight speed")
    func chordWhileCircling() throws {
        let fixes = Self.circling(count: 40, step: 1)
        let line = try #require(TurnChord.line(points: Self.points(fixes), epsilon: 50))
        let offset = (line.east * line.east + line.north * line.north).squareRoot()
        #expect(abs(offset - 0.25 * 50) < 1)
        #expect(line.velocity.speed < 33 && line.velocity.speed > 20)
    }

    @Test("No chord on a straight track or just after a short corner")
    func noChordWithoutSteadyTurn() {
        let straight = SyntheticTracks.straight(count: 40, speed: 12)
        #expect(TurnChord.line(points: Self.points(straight), epsilon: 50) == nil)
        let corner = Self.corner()
        // At the corner's last fix the turn has lasted 3 s of the 8 s it must persist.
        #expect(TurnChord.line(points: Self.points(Array(corner[0...33])), epsilon: 50) == nil)
        #expect(TurnChord.line(points: Self.points(corner), epsilon: 50) == nil)
    }

    @Test("Circling at 1 s and 3 s sampling: the bound holds and bounded needs at most 0.8 x dead reckoning's reports",
          arguments: [1.0, 3.0], [25.0, 50, 100])
    func circlingCostsLess(step: Double, epsilon: Double) {
        let track = Self.circling(count: Int(900 / step), step: step)
        let bounded = Evaluator().evaluate(BoundedPolicy(parameters: .init(epsilon: epsilon)), on: track)
        let plain = Evaluator().evaluate(DeadReckoningPolicy(parameters: .init(epsilon: epsilon)), on: track)
        #expect(bounded.evaluation.predictError.max <= epsilon)
        #expect(Double(bounded.evaluation.reports) <= 0.8 * Double(plain.evaluation.reports),
                "bounded \(bounded.evaluation.reports), dead reckoning \(plain.evaluation.reports)")
    }

    @Test("A report sent from the chord carries a position off the fix, and the display still holds the fix")
    func reportFromChord() throws {
        var policy = BoundedPolicy()
        let reports = Evaluator.reports(of: &policy, on: Self.circling(count: 300, step: 1))
        let track = Self.circling(count: 300, step: 1)
        let moved = reports.filter { $0.report.fix.coordinate != track[$0.index].coordinate }
        #expect(!moved.isEmpty)
        for (index, report) in moved {
            let message = LocationMessage(report: report, tid: "ab")
            #expect(Geodesy.distance(message.displayedPosition(at: track[index].time), track[index].coordinate) <= 50)
            #expect(report.fix.time == track[index].time)
        }
    }
}
