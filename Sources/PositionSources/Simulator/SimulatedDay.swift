#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// A simulated working day built from the ``Simulator``: standing at home, driving to work,
/// standing at work, driving home the same way back, standing at home until midnight.
///
/// Home is ``SimulatedDayOptions/home``; work is where the morning drive (the simulator's `drive`
/// scenario) ended. The evening drive is the morning one backwards (times re-based, courses
/// turned round), so both commutes cover the same road. Standing uses the `still` scenario
/// (position noise wandering a few metres, and its rare multipath outliers).
package struct SimulatedDay: Sendable {
    /// Every fix of the day, in time order.
    package let fixes: [Fix]
    /// Where home is.
    package let home: Coordinate
    /// Where work is (the end of the morning drive).
    package let work: Coordinate

    /// Simulates the day `options` describe; the same options give the same day.
    package init(options: SimulatedDayOptions = SimulatedDayOptions()) {
        let dt = options.interval
        func count(_ seconds: Double) -> Int { max(1, Int((seconds / dt).rounded())) }
        func still(at point: Coordinate, from start: Date, seconds: Double, seed: UInt64) -> [Fix] {
            Array(Simulator(options: SimulatorOptions(
                scenario: .still, seed: seed, start: point, startTime: start, interval: dt, count: count(seconds))))
        }
        let midnight = options.startTime
        let leaveHome = midnight.addingTimeInterval(options.leaveHome)
        var fixes = still(at: options.home, from: midnight, seconds: options.leaveHome, seed: options.seed)
        let morning = Array(Simulator(options: SimulatorOptions(
            scenario: .drive, seed: options.seed &+ 1, start: options.home, startTime: leaveHome, interval: dt,
            count: count(options.commute), outlierProbability: 0)))
        fixes += morning
        let work = morning.last?.coordinate ?? options.home
        let arrived = leaveHome.addingTimeInterval(Double(morning.count) * dt)
        let leaveWork = midnight.addingTimeInterval(options.leaveWork)
        fixes += still(at: work, from: arrived, seconds: leaveWork.timeIntervalSince(arrived), seed: options.seed &+ 2)
        let evening = morning.reversed().enumerated().map { offset, fix in
            var back = fix
            back.time = leaveWork.addingTimeInterval(Double(offset) * dt)
            back.course = fix.course.map { ($0 + 180).truncatingRemainder(dividingBy: 360) }
            return back
        }
        fixes += evening
        let home = leaveWork.addingTimeInterval(Double(evening.count) * dt)
        let end = midnight.addingTimeInterval(86_400)
        fixes += still(at: options.home, from: home, seconds: end.timeIntervalSince(home), seed: options.seed &+ 3)
        self.fixes = fixes
        self.home = options.home
        self.work = work
    }
}

/// What ``SimulatedDay`` simulates.
package struct SimulatedDayOptions: Sendable, Hashable {
    /// The random seed. Default 1.
    package var seed: UInt64
    /// Where home is. Default Limerick (52.6638 N, 8.6267 W).
    package var home: Coordinate
    /// Midnight at the start of the day. Default 2024-01-01T00:00:00Z.
    var startTime: Date
    /// Seconds between fixes. Default 1 s, as the publisher's `sim:` source.
    package var interval: Double
    /// Seconds after midnight the morning drive starts. Default 8 h.
    var leaveHome: Double
    /// Seconds the morning drive takes. Default 25 min.
    var commute: Double
    /// Seconds after midnight the evening drive starts. Default 17 h.
    var leaveWork: Double

    /// Creates options; every argument has a default.
    package init(
        seed: UInt64 = 1, home: Coordinate = Coordinate(latitude: 52.6638, longitude: -8.6267),
        startTime: Date = Date(timeIntervalSince1970: 1_704_067_200), interval: Double = 1,
        leaveHome: Double = 8 * 3600, commute: Double = 25 * 60, leaveWork: Double = 17 * 3600
    ) {
        self.seed = seed
        self.home = home
        self.startTime = startTime
        self.interval = interval
        self.leaveHome = leaveHome
        self.commute = commute
        self.leaveWork = leaveWork
    }
}
