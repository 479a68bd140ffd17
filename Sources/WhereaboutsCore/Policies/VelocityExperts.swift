import Foundation

/// Follow the leader among velocity estimators: which velocity `bounded` sends is learnt on the
/// track itself, not fitted to a corpus.
///
/// Each estimator runs its own shadow of dead reckoning: the shadow reports a fix when its own
/// display misses it by more than `epsilon` (or `maxSilence` has passed), carrying the velocity
/// that estimator gives there. `bounded` sends the velocity of the estimator whose shadow has
/// needed the fewest reports on this track so far (the first in ``estimators`` on a tie, so a
/// track starts as plain dead reckoning, or with the receiver's velocity where it has one). Smoothed 1 Hz car and bike tracks keep the last two
/// fixes' velocity; noisy walks and runs move to a least-squares line over a few seconds.
///
/// Per fix the cost is one display check per estimator (planar, like ``DisplayTracker``); an
/// estimate is computed only when a shadow reports, over at most ``VelocityFit/windows``' longest
/// window of history. Neither depends on `maxSilence`.
struct VelocityExperts: Sendable {
    /// An estimator of the velocity to send.
    enum Estimator: Sendable, Equatable {
        /// The velocity between the last two fixes (plain dead reckoning's).
        case lastTwo
        /// Least squares through the sent position over the last so many seconds.
        case window(Double)
        /// The receiver's measured velocity (speed and course), or the last two fixes' without one.
        case measured
        /// No velocity: dashboards hold the position.
        case hold
    }

    /// The estimators, in order of preference on a tie: the receiver's measurement (the last two
    /// fixes' velocity where the receiver gave none, so it needs no history to be right), the
    /// last two fixes, least squares over 2, 4, 8 and 16 s, and hold (chosen on half A of the
    /// corpus, BENCHMARKS.md: 32 and 64 s windows sent more reports there).
    static let estimators: [Estimator] = [.measured, .lastTwo, .window(2), .window(4), .window(8), .window(16), .hold]

    /// The longest least-squares window among the estimators (s): how far back a shadow looks.
    static let longestWindow = 16.0

    private var shadows: [PredictionGuard]
    /// The reports each estimator's shadow has sent so far (the first report not counted).
    private(set) var costs: [Int]
    private let stationarySpeed: Double
    private var quick: [QuickCheck]
    private let epsilon: Double
    private let maxSilence: Int

    init(epsilon: Double, maxSilence: Int, maxSpeed: Double?, stationarySpeed: Double) {
        shadows = Self.estimators.map { _ in PredictionGuard(epsilon: epsilon, maxSilence: maxSilence, maxSpeed: maxSpeed) }
        costs = Self.estimators.map { _ in 0 }
        self.stationarySpeed = stationarySpeed
        quick = Self.estimators.map { _ in QuickCheck() }
        self.epsilon = epsilon
        self.maxSilence = maxSilence
    }

    /// The estimator whose shadow has sent the fewest reports (the first on a tie).
    var leader: Estimator {
        var best = 0
        for index in costs.indices where costs[index] < costs[best] { best = index }
        return Self.estimators[best]
    }

    /// Advances every shadow by `fix`, which `history` already holds as its newest entry.
    mutating func observe(_ fix: Fix, history: FixHistory) {
        var points: [VelocityFit.Point]? = nil
        for index in shadows.indices {
            if quick[index].clearlyWithin(fix) { continue }
            guard let trigger = shadows[index].trigger(for: fix) else { continue }
            if trigger != .firstPublish { costs[index] += 1 }
            let recent = points ?? VelocityFit.recentPoints(history: history, fix: fix, within: Self.longestWindow)
            points = recent
            let velocity = velocity(Self.estimators[index], points: recent, fix: fix)
            _ = shadows[index].report(fix, trigger: trigger, velocity: velocity)
            quick[index] = QuickCheck(message: shadows[index].display?.message, epsilon: epsilon, maxSilence: maxSilence)
        }
    }

    /// The planar part of ``DisplayTracker/misses(_:by:)`` and the `maxSilence` test for one
    /// shadow, in plain fields: most fixes are settled here without touching the shadow's
    /// `PredictionGuard` (copying it per fix and shadow cost more than the check itself).
    private struct QuickCheck {
        var latitude = 0.0, longitude = 0.0, metresPerDegreeLatitude = 0.0, metresPerDegreeLongitude = 0.0
        var east = 0.0, north = 0.0, tst = 0.0, horizon = 0.0, distortion = 0.0, epsilon = -1.0, silenceAt = Double.infinity

        init() {}

        init(message: LocationMessage?, epsilon: Double, maxSilence: Int) {
            guard let message else { return }
            latitude = message.lat
            longitude = message.lon
            metresPerDegreeLatitude = Geodesy.earthRadius * .pi / 180
            metresPerDegreeLongitude = metresPerDegreeLatitude * cos(message.lat * .pi / 180)
            let velocity = message.extrapolationVelocity ?? .zero
            east = velocity.east
            north = velocity.north
            tst = Double(message.tst)
            horizon = Double(message.ms ?? LocationMessage.defaultMaxSilence)
            distortion = 1e-4 * (1 + abs(tan(message.lat * .pi / 180)))
            self.epsilon = epsilon
            let moving = east != 0 || north != 0
            silenceAt = moving && horizon >= Double(maxSilence) ? tst + Double(maxSilence) : .infinity
        }

        /// Whether the shadow certainly stays silent at `fix` (false when unsure).
        func clearlyWithin(_ fix: Fix) -> Bool {
            let time = fix.time.timeIntervalSince1970
            guard epsilon > 0, time < silenceAt else { return false }
            var dλ = fix.longitude - longitude
            if dλ > 180 { dλ -= 360 } else if dλ < -180 { dλ += 360 }
            let e = dλ * metresPerDegreeLongitude, n = (fix.latitude - latitude) * metresPerDegreeLatitude
            let elapsed = min(max(time - tst, 0), horizon)
            let dx = e - east * elapsed, dy = n - north * elapsed
            let margin = 1 + distortion * (abs(e) + abs(n))
            let limit = epsilon - margin
            return limit > 0 && dx * dx + dy * dy < limit * limit
        }
    }

    /// The velocity `estimator` gives for `points` (newest first, in the sent frame), or `nil`
    /// (hold) when it is slower than `stationarySpeed`.
    func velocity(_ estimator: Estimator, points: [VelocityFit.Point], fix: Fix) -> Velocity? {
        let estimate: Velocity?
        switch estimator {
        case .lastTwo:
            estimate = VelocityFit.lastTwo(points: points)
        case .measured:
            estimate = fix.measuredVelocity ?? VelocityFit.lastTwo(points: points)
        case .hold:
            estimate = nil
        case .window(let seconds):
            var sumTE = 0.0, sumTN = 0.0, sumTT = 0.0
            for point in points {
                if point.tau < -seconds { break }
                sumTE += point.tau * point.east
                sumTN += point.tau * point.north
                sumTT += point.tau * point.tau
            }
            estimate = sumTT > 0 ? Velocity(east: sumTE / sumTT, north: sumTN / sumTT) : VelocityFit.lastTwo(points: points)
        }
        return estimate.flatMap { $0.speed >= stationarySpeed ? $0 : nil }
    }
}
