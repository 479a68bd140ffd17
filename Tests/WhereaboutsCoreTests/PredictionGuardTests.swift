import Foundation
import Testing
@testable import WhereaboutsCore

/// What every predicting report respects: no velocity above `maxSpeed`, and the bound at the
/// reported fix itself even when the wire's whole-second `tst` lags the fix's time.
struct PredictionGuardTests {
    @Test("A velocity above maxSpeed is not sent: the report holds")
    func velocityCap() {
        var policy = DeadReckoningPolicy(parameters: .init(epsilon: 50, maxSpeed: 50))
        _ = policy.consider(SyntheticTracks.fix(0, east: 0))
        _ = policy.consider(SyntheticTracks.fix(10, east: 100))
        // 900 m in 1 s: the implied 900 m/s is a jump, not a speed to extrapolate.
        let jump = policy.consider(SyntheticTracks.fix(11, east: 1_000))
        #expect(jump != nil)
        #expect(jump?.velocity == nil)
        let next = policy.consider(SyntheticTracks.fix(12, east: 1_060))
        #expect(next?.velocity.map { $0.speed <= 50 } ?? true)
        // Without a cap the same jump is extrapolated at 900 m/s.
        var uncapped = DeadReckoningPolicy(parameters: .init(epsilon: 50, maxSpeed: nil))
        for (t, e) in [(0.0, 0.0), (10, 100)] { _ = uncapped.consider(SyntheticTracks.fix(t, east: e)) }
        #expect((uncapped.consider(SyntheticTracks.fix(11, east: 1_000))?.velocity?.speed ?? 0) > 800)
    }

    @Test("A fix 0.9 s past its whole second: a velocity that would miss it already holds instead")
    func ownFix() {
        var guardian = PredictionGuard(epsilon: 25, maxSilence: 120)
        let fix = SyntheticTracks.fix(0.9, east: 0)
        // 40 m/s × 0.9 s = 36 m past the fix by its own time: beyond 25 m.
        let report = guardian.report(fix, trigger: .firstPublish, velocity: Velocity(east: 40, north: 0))
        #expect(report.velocity == nil)
        #expect(guardian.trigger(for: fix) == nil)
        // At 20 m/s (18 m) the velocity is kept.
        var slower = PredictionGuard(epsilon: 25, maxSilence: 120)
        #expect(slower.report(fix, trigger: .firstPublish, velocity: Velocity(east: 20, north: 0)).velocity != nil)
    }
}

/// The policies' fast display check agrees with the display model when the message turns.
struct TurningDisplayTrackerTests {
    @Test("DisplayTracker.misses agrees with displayedPosition on an arc", arguments: [-20.0, -3, 3, 20])
    func agrees(turnRate: Double) {
        let message = LocationMessage(tid: "--", tst: 1_700_000_000, lat: 46.05, lon: 14.5, acc: 5, ve: 30, vn: -12, ms: 60, tr: turnRate)
        let tracker = DisplayTracker(message: message)
        let origin = LocalProjection(origin: message.coordinate)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let elapsed = Double.random(in: 0...90, using: &generator)
            let shown = origin.project(message.displayedPosition(afterSeconds: elapsed))
            let point = origin.unproject(east: shown.east + Double.random(in: -60...60, using: &generator),
                                         north: shown.north + Double.random(in: -60...60, using: &generator))
            let fix = Fix(time: Date(timeIntervalSince1970: 1_700_000_000 + elapsed), latitude: point.latitude, longitude: point.longitude)
            let distance = Geodesy.distance(message.displayedPosition(at: fix.time), fix.coordinate)
            #expect(tracker.misses(fix, by: 50) == (distance > 50))
        }
    }
}
