import Foundation
import PositionSources
import Testing
import EvalKit
import WhereaboutsCore

/// The simulated working day and the place rule as a policy (what `PlaceDayBenchmark` measures).
struct PlaceDayTests {
    @Test("The simulated day goes home, work, home, and the place rule sees exactly those five transitions")
    func day() {
        let day = SimulatedDay(options: SimulatedDayOptions(seed: 1))
        #expect(day.fixes.count == 86_400)
        #expect(zip(day.fixes, day.fixes.dropFirst()).allSatisfy { $0.time < $1.time })
        #expect(Geodesy.distance(day.home, day.work) > 1_000)
        var filter = FixFilter()
        let track = day.fixes.filter { filter.accept($0, now: $0.time) }
        let places = [
            Place(name: "Home", lat: day.home.latitude, lon: day.home.longitude, radius: 100, profile: .significant, profileOnLeave: .active),
            Place(name: "Work", lat: day.work.latitude, lon: day.work.longitude, radius: 150, profile: .significant, profileOnLeave: .active),
        ]
        var policy = PlaceProfilePolicy(places: places, active: { IntervalPolicy() }, significant: { SignificantPolicy() })
        let reports = Evaluator.reports(of: &policy, on: track)
        #expect(policy.transitions.map { "\($0.event.rawValue) \($0.place.name)" } == [
            "enter Home", "leave Home", "enter Work", "leave Work", "enter Home",
        ])
        #expect(reports.filter { $0.report.trigger == .region }.count == 5)
        #expect(policy.mode == .significant)
        var plain = IntervalPolicy()
        #expect(reports.count * 10 < Evaluator.reports(of: &plain, on: track).count, "standing still in the significant profile")
    }
}
