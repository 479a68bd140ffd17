#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The recent motion as a quadratic: the velocity and acceleration that best explain the last few
/// fixes in the sent frame, for `bounded`'s turn and braking rules.
///
/// The fit is least squares of `p(τ) = u τ + a τ² / 2` through the sent position (τ = 0), over
/// the fixes of the last ``window`` seconds, reaching further back (up to ``reach`` seconds) when
/// fewer than three fixes fall inside the window, as on sparse tracks.
struct Kinematics: Sendable, Equatable {
    /// The fitted velocity at the sent position, m/s.
    var velocity: Velocity
    /// The fitted acceleration, m/s².
    var acceleration: Velocity
    /// The largest distance (m) between a fitted fix and the quadratic.
    var residual: Double

    /// The seconds of history the fit uses when it holds at least three fixes.
    static let window = 12.0
    /// The seconds of history the fit may reach back to gather three fixes.
    static let reach = 30.0

    /// The fitted speed, m/s.
    var speed: Double { velocity.speed }

    /// The deceleration along the fitted velocity, m/s² (negative when speeding up).
    var deceleration: Double {
        let s = speed
        return s > 0 ? -(acceleration.east * velocity.east + acceleration.north * velocity.north) / s : 0
    }

    /// The turn rate, degrees per second (positive turning left, counter-clockwise).
    var turnRate: Double {
        let s2 = velocity.east * velocity.east + velocity.north * velocity.north
        guard s2 > 0 else { return 0 }
        return (velocity.east * acceleration.north - velocity.north * acceleration.east) / s2 * 180 / .pi
    }

    /// Fits the quadratic to `points` (newest first, as ``SentFrame/recentPoints(history:origin:tst:)``
    /// gives them), or `nil` with fewer than three usable fixes.
    static func fit(points: [SentFrame.Point]) -> Kinematics? {
        var count = 0
        var s11 = 0.0, s12 = 0.0, s22 = 0.0
        var b1e = 0.0, b2e = 0.0, b1n = 0.0, b2n = 0.0
        for point in points {
            if point.tau < -window, count >= 3 || point.tau < -reach { break }
            let x1 = point.tau, x2 = 0.5 * point.tau * point.tau
            s11 += x1 * x1; s12 += x1 * x2; s22 += x2 * x2
            b1e += x1 * point.east; b2e += x2 * point.east
            b1n += x1 * point.north; b2n += x2 * point.north
            count += 1
        }
        let det = s11 * s22 - s12 * s12
        guard count >= 3, det > 1e-9 * max(1, s11 * s22) else { return nil }
        let velocity = Velocity(east: (b1e * s22 - b2e * s12) / det, north: (b1n * s22 - b2n * s12) / det)
        let acceleration = Velocity(east: (b2e * s11 - b1e * s12) / det, north: (b2n * s11 - b1n * s12) / det)
        var residual = 0.0
        for point in points.prefix(count) {
            let half = 0.5 * point.tau * point.tau
            let de = velocity.east * point.tau + acceleration.east * half - point.east
            let dn = velocity.north * point.tau + acceleration.north * half - point.north
            residual = max(residual, (de * de + dn * dn).squareRoot())
        }
        return Kinematics(velocity: velocity, acceleration: acceleration, residual: residual)
    }

    /// The horizons `bounded` chooses from, in seconds, shortest first; `maxSilence` is the default.
    static let horizons = [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 18, 22, 27, 33, 40, 50, 60, 75, 90, 105]

    /// The horizon (s) that keeps a display of `velocity` within `tolerance` metres of the braking
    /// path for longest, when that is shorter than `maxSilence`; `nil` when extrapolating for the
    /// full `maxSilence` does as well.
    ///
    /// The braking path goes on from the sent position along the fitted velocity, slowing at
    /// ``deceleration`` until it stops; the display moves at `velocity` for the horizon and then
    /// holds (``LocationMessage/displayedPosition(afterSeconds:)``). Each horizon is scored by the
    /// first whole second, up to `maxSilence`, at which the display strays more than `tolerance`
    /// from the path; ties go to the longer horizon.
    ///
    /// The cost does not depend on `maxSilence`: after the stop (at most ``brakingTime``-ish
    /// seconds away) the path stands still, and after its horizon a display stands still too, so
    /// the search only walks the seconds before both; for the full horizon, whose display keeps
    /// moving, the first miss after the stop is where a quadratic in time crosses `tolerance`.
    func brakingHorizon(for velocity: Velocity, tolerance: Double, maxSilence: Int) -> Int? {
        let s0 = speed, a = deceleration
        guard s0 > 0, a > 0, maxSilence > 1 else { return nil }
        let ue = self.velocity.east / s0, un = self.velocity.north / s0
        let stop = s0 / a
        let limit = tolerance * tolerance
        // The whole second from which the braking path stands still.
        let still = stop < Double(maxSilence) ? Int(stop.rounded(.up)) : maxSilence
        // Whether a display of `velocity` for `horizon` seconds strays from the path at `second`.
        func misses(_ second: Int, _ horizon: Int) -> Bool {
            let t = min(Double(second), stop)
            let distance = s0 * t - 0.5 * a * t * t
            let shown = Double(min(second, horizon))
            let de = velocity.east * shown - ue * distance
            let dn = velocity.north * shown - un * distance
            return de * de + dn * dn > limit
        }
        func missTime(_ horizon: Int) -> Int {
            let walked = min(maxSilence, horizon >= maxSilence ? still : max(still, horizon))
            for second in 1...walked where misses(second, horizon) { return second }
            guard horizon >= maxSilence, walked < maxSilence else { return maxSilence + 1 }
            return firstMissAfterStop(from: walked + 1, maxSilence: maxSilence, miss: { misses($0, horizon) }, velocity: velocity, still: still, stop: stop, limit: limit, ue: ue, un: un)
        }
        var best = missTime(maxSilence)
        var chosen: Int? = nil
        for horizon in Self.horizons.reversed() where horizon < maxSilence {
            let time = missTime(horizon)
            if time > best { best = time; chosen = horizon }
        }
        return chosen
    }

    /// The first whole second from `first` (after the stop) up to `maxSilence` at which a display
    /// that keeps moving at `velocity` strays more than `limit` (squared) from the stopped path,
    /// or `maxSilence + 1`. The squared distance is convex in time, so the answer is `first` or
    /// just past the larger root; `miss` (the per-second test) settles rounding at the edge.
    private func firstMissAfterStop(
        from first: Int, maxSilence: Int, miss: (Int) -> Bool, velocity: Velocity, still: Int, stop: Double,
        limit: Double, ue: Double, un: Double
    ) -> Int {
        if miss(first) { return first }
        let s0 = speed, a = deceleration
        let end = s0 * stop - 0.5 * a * stop * stop
        let pe = ue * end, pn = un * end
        let vv = velocity.east * velocity.east + velocity.north * velocity.north
        guard vv > 0 else { return maxSilence + 1 }
        let vp = velocity.east * pe + velocity.north * pn
        let pp = pe * pe + pn * pn
        let discriminant = max(vp * vp - vv * (pp - limit), 0)
        let root = min((vp + discriminant.squareRoot()) / vv, Double(maxSilence))
        var second = min(max(first + 1, Int(root.rounded(.down)) + 1), maxSilence)
        while second > first + 1, miss(second - 1) { second -= 1 }
        while second <= maxSilence, !miss(second) { second += 1 }
        return min(second, maxSilence + 1)
    }
}
