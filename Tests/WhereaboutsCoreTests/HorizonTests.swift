import Foundation
import Testing
import EvalKit
@testable import WhereaboutsCore

/// The extrapolation horizon (`ms`) that `bounded` shortens while a device brakes to a stop, the
/// quadratic fit behind it (`Kinematics`) and the `T` trigger that only an extrapolating display
/// needs (`PredictionGuard`).
struct HorizonTests {
    /// Points of the exact motion `p(τ) = u τ + a τ² / 2`, one a second for the last `seconds`.
    static func points(u: Velocity, a: Velocity, seconds: Int) -> [SentFrame.Point] {
        (0...seconds).map { age in
            let tau = -Double(age)
            return SentFrame.Point(tau: tau, east: u.east * tau + a.east * tau * tau / 2, north: u.north * tau + a.north * tau * tau / 2)
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

/// The braking horizon's search, whose cost no longer grows with `maxSilence`, chooses exactly
/// what walking every second up to `maxSilence` chose.
struct BrakingHorizonCostTests {
    /// The original search: the braking path at every second up to `maxSilence`.
    static func reference(_ motion: Kinematics, velocity: Velocity, tolerance: Double, maxSilence: Int) -> Int? {
        let s0 = motion.speed, a = motion.deceleration
        guard s0 > 0, a > 0, maxSilence > 1 else { return nil }
        let ue = motion.velocity.east / s0, un = motion.velocity.north / s0
        let stop = s0 / a
        let limit = tolerance * tolerance
        var path: [(east: Double, north: Double)] = []
        for second in 1...maxSilence {
            let t = min(Double(second), stop)
            let distance = s0 * t - 0.5 * a * t * t
            path.append((ue * distance, un * distance))
        }
        func missTime(_ horizon: Int) -> Int {
            for second in 1...maxSilence {
                let t = Double(min(second, horizon))
                let de = velocity.east * t - path[second - 1].east
                let dn = velocity.north * t - path[second - 1].north
                if de * de + dn * dn > limit { return second }
            }
            return maxSilence + 1
        }
        var best = missTime(maxSilence)
        var chosen: Int? = nil
        for horizon in Kinematics.horizons.reversed() where horizon < maxSilence {
            let time = missTime(horizon)
            if time > best { best = time; chosen = horizon }
        }
        return chosen
    }

    @Test("Same horizon as the exhaustive walk on 3,000 random braking motions and silences")
    func sameAsReference() {
        var state: UInt64 = 42
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var differences = 0
        var shortened = 0
        for _ in 0..<3_000 {
            let speed = 1 + 30 * random(), heading = 2 * .pi * random()
            let u = Velocity(east: speed * sin(heading), north: speed * cos(heading))
            let deceleration = 0.05 + 2 * random()
            let a = Velocity(east: -u.east / speed * deceleration, north: -u.north / speed * deceleration + (random() - 0.5))
            let motion = Kinematics(velocity: u, acceleration: a, residual: 0)
            let skew = Velocity(east: u.east * (0.7 + 0.6 * random()), north: u.north * (0.7 + 0.6 * random()))
            let tolerance = 5 + 50 * random()
            let maxSilence = [2, 30, 120, 600, 5_000][Int(random() * 5)]
            let fast = motion.brakingHorizon(for: skew, tolerance: tolerance, maxSilence: maxSilence)
            if fast != Self.reference(motion, velocity: skew, tolerance: tolerance, maxSilence: maxSilence) { differences += 1 }
            if fast != nil { shortened += 1 }
        }
        #expect(differences == 0)
        #expect(shortened > 300)  // the comparison covered many shortened horizons
    }
}
