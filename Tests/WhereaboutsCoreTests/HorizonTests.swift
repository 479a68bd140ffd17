import Foundation
import Testing
@testable import WhereaboutsCore

/// The extrapolation horizon (`ms`) that `bounded` shortens while a device brakes to a stop, the
/// quadratic fit behind it (`Kinematics`) and the `T` trigger that only an extrapolating display
/// needs (`PredictionGuard`).
struct HorizonTests {
    /// Points of the exact motion `p(τ) = u τ + a τ² / 2`, one a second for the last `seconds`.
    static func points(u: Velocity, a: Velocity, seconds: Int) -> [VelocityFit.Point] {
        (0...seconds).map { age in
            let tau = -Double(age)
            return VelocityFit.Point(tau: tau, east: u.east * tau + a.east * tau * tau / 2, north: u.north * tau + a.north * tau * tau / 2)
        }
    }

    @Test("The quadratic fit recovers velocity, acceleration, deceleration and turn rate")
    func fit() throws {
        let motion = try #require(Kinematics.fit(points: Self.points(u: Velocity(east: 10, north: 0), a: Velocity(east: -1, north: 0.5), seconds: 20)))
        #expect(abs(motion.velocity.east - 10) < 1e-6 && abs(motion.velocity.north) < 1e-6)
        #expect(abs(motion.acceleration.east + 1) < 1e-6 && abs(motion.acceleration.north - 0.5) < 1e-6)
        #expect(motion.residual < 1e-6)
        #expect(abs(motion.deceleration - 1) < 1e-6)
        // 0.05 rad/s to the left (counter-clockwise).
        #expect(abs(motion.turnRate - 0.05 * 180 / .pi) < 1e-6)
        // Two fixes do not make a quadratic.
        #expect(Kinematics.fit(points: Array(Self.points(u: Velocity(east: 10, north: 0), a: .zero, seconds: 1))) == nil)
    }

    @Test("Braking at 1 m/s² from 10 m/s: the horizon holds the display near the stop 50 m on")
    func brakingHorizon() throws {
        let motion = try #require(Kinematics.fit(points: Self.points(u: Velocity(east: 10, north: 0), a: Velocity(east: -1, north: 0), seconds: 6)))
        let horizon = try #require(motion.brakingHorizon(for: Velocity(east: 10, north: 0), tolerance: 25, maxSilence: 120))
        // The display stops at 10 m/s × horizon, within 25 m of the stop at 50 m.
        #expect((3...7).contains(horizon))
        // No braking, no shorter horizon.
        let cruise = try #require(Kinematics.fit(points: Self.points(u: Velocity(east: 10, north: 0), a: .zero, seconds: 6)))
        #expect(cruise.brakingHorizon(for: Velocity(east: 10, north: 0), tolerance: 25, maxSilence: 120) == nil)
    }

    @Test("No T report once a display with a shorter horizon has stopped moving; T as before otherwise")
    func timePassedOnlyWhileExtrapolating() {
        let start = SyntheticTracks.fix(0, east: 0)
        let velocity = Velocity(east: 10, north: 0)
        var short = PredictionGuard(epsilon: 20, maxSilence: 30)
        let report = short.report(start, trigger: .firstPublish, velocity: velocity, horizon: 5)
        #expect(report.maxSilence == 5)
        #expect(LocationMessage(report: report, tid: "ab", maxSilence: 30).ms == 5)
        // The display moves 50 m east in 5 s and holds there, where the device stands.
        for second in 5...200 { #expect(short.trigger(for: SyntheticTracks.fix(Double(second), east: 50)) == nil) }

        var full = PredictionGuard(epsilon: 20, maxSilence: 30)
        #expect(full.report(start, trigger: .firstPublish, velocity: velocity).maxSilence == 30)
        #expect(full.trigger(for: SyntheticTracks.fix(29, east: 290)) == nil)
        #expect(full.trigger(for: SyntheticTracks.fix(30, east: 300)) == .timePassed)
        // A horizon beyond maxSilence is clamped to it.
        var long = PredictionGuard(epsilon: 20, maxSilence: 30)
        #expect(long.report(start, trigger: .firstPublish, velocity: velocity, horizon: 500).maxSilence == 30)
    }

    /// 60 s at 15 m/s east, braking at 1 m/s² to a stop 112.5 m on (at 75 s), then 120 s standing.
    static func brakingTrack() -> (track: [Fix], stop: Double) {
        var fixes = (0...60).map { SyntheticTracks.fix(Double($0), east: Double($0) * 15) }
        var east = 900.0, speed = 15.0, second = 60.0
        while speed > 0 {
            second += 1
            let next = max(0, speed - 1)
            east += (speed + next) / 2
            speed = next
            fixes.append(SyntheticTracks.fix(second, east: east))
        }
        let stop = second
        fixes += (1...120).map { SyntheticTracks.fix(stop + Double($0), east: east) }
        return (fixes, stop)
    }

    @Test("Braking to a stop: one report with a short horizon covers the stop; no k or T report after it")
    func brakingTrack() throws {
        let (track, stop) = Self.brakingTrack()
        var policy = BoundedPolicy()
        let reports = Evaluator.reports(of: &policy, on: track)
        let braking = try #require(reports.first { ($0.report.maxSilence ?? 120) < 120 })
        #expect(braking.report.velocity != nil)
        #expect(track[braking.index].time.timeIntervalSince1970 < SyntheticTracks.start.timeIntervalSince1970 + stop)
        // Nothing after the braking report: the display stops where the device does.
        #expect(reports.last?.index == braking.index)
        #expect(!reports.contains { $0.report.trigger == .timePassed })
        let (bounded, plain) = BoundedPolicyTests.compare(on: track)
        #expect(bounded.predictError.max <= 50)
        #expect(bounded.reports < plain.reports)
    }
}
