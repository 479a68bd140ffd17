#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
/// Per fix the cost is one planar display check per estimator (a few multiplications); an
/// estimate is computed only when a shadow reports, over at most ``longestWindow`` seconds of
/// history. Neither depends on `maxSilence`.
struct VelocityExperts: Sendable {
    /// An estimator of the velocity to send.
    enum Estimator: Sendable, Equatable {
        /// The velocity between the last two fixes (plain dead reckoning's).
        case lastTwo
        /// Least squares through the sent position over the last so many seconds.
        case window(Double)
        /// The receiver's measured velocity (speed and course); where it measured a speed but no
        /// course, that speed along the last two fixes' heading; else the last two fixes' velocity.
        /// Hold where the receiver measured less than ``VelocityExperts/parkedSpeed``.
        case measured
        /// No velocity: dashboards hold the position.
        case hold
        /// The last two fixes' velocity turning at the recent turn rate (``turnRate(points:)``):
        /// the display follows an arc (the wire's `tr`).
        case turning

        /// The estimator's name in `whereabouts-eval --reports` (`measured`, `window8`, `hold`,
        /// `turning`, `last-two`).
        var name: String {
            switch self {
            case .lastTwo: "last-two"
            case .window(let seconds): seconds == 8 ? "window8" : "window\(Int(seconds))"
            case .measured: "measured"
            case .hold: "hold"
            case .turning: "turning"
            }
        }
    }

    /// The estimators, in order of preference on a tie: the receiver's measurement (its speed
    /// along the last two fixes' heading where it gave no course, the last two fixes' velocity
    /// where it gave neither, so it needs no history to be right), least squares over 8 s, and
    /// hold. The first two pay off on datasets they were not chosen on; hold keeps a receiver that
    /// stands still (with noise) from costing more than dead reckoning. Least squares over 2 s,
    /// the fourth of issue 12's, did not pay off on left-out datasets and was removed
    /// (leave-one-dataset-out, BENCHMARKS.md).
    static let estimators: [Estimator] = [.measured, .window(8), .hold, .turning]

    /// Below this measured speed (m/s) the receiver's estimate holds: 0.5 m/s. A parked receiver
    /// measures a Doppler speed of a few decimetres per second with a frozen course (the corpus's
    /// moored boat: 0.15-0.3 m/s); sent as a velocity, it made dashboards drift and cost a `T`
    /// report every `maxSilence` until the hold shadow took the lead. Chosen on half A of the
    /// corpus (0.5 against 0.8 and 1.2; BENCHMARKS.md).
    static let parkedSpeed = 0.5

    /// The longest least-squares window among the estimators (s): how far back a shadow looks.
    static let longestWindow = 8.0

    /// The estimators in use: ``estimators`` less those switched off (`BoundedPolicy.Rule`), or
    /// the last two fixes' alone without the experts rule.
    let inUse: [Estimator]
    /// The names of ``inUse``, made once (for `BoundedPolicy.Choice`).
    let names: [String]
    private let useParked: Bool
    private let useTurnLead: Bool
    private var shadows: [Shadow]
    /// The recent fixes in the frame of the fix being considered (reused from fix to fix).
    private var points: [SentFrame.Point] = []
    /// The reports each estimator's shadow has sent so far (the first report not counted).
    private(set) var costs: [Int]
    private let epsilon: Double
    private let maxSilence: Double
    private let maxSpeed: Double?

    init(epsilon: Double, maxSilence: Int, maxSpeed: Double?, without: Set<BoundedPolicy.Rule> = []) {
        var inUse = Self.estimators.filter { estimator in
            switch estimator {
            case .measured: !without.contains(.measured)
            case .window(8): !without.contains(.window8)
            case .hold: !without.contains(.hold)
            case .turning: !without.contains(.turning)
            default: true
            }
        }
        if without.contains(.experts) || inUse.isEmpty { inUse = [.lastTwo] }
        self.inUse = inUse
        names = inUse.map(\.name)
        useParked = !without.contains(.parked)
        useTurnLead = !without.contains(.turnLead)
        shadows = inUse.map { _ in Shadow() }
        costs = inUse.map { _ in 0 }
        self.epsilon = epsilon
        self.maxSilence = Double(maxSilence)
        self.maxSpeed = maxSpeed
    }

    /// The estimator whose shadow has sent the fewest reports (the first on a tie); turning only
    /// while it holds the lead (``turningLeads``).
    var leader: Estimator {
        if turningLeads, let turning = inUse.firstIndex(of: .turning) { return inUse[turning] }
        return inUse[bestStraight]
    }

    /// The straight estimator (any but turning) whose shadow has sent the fewest reports.
    private var bestStraight: Int {
        var best = -1
        for index in costs.indices where inUse[index] != .turning && (best < 0 || costs[index] < costs[best]) { best = index }
        return max(best, 0)
    }

    /// Whether turning leads: it takes the lead when its shadow has needed fewer reports than the
    /// best straight one by more than one standard deviation of a count of that size
    /// (`√straight`), so that chance (a few reports either way on a track where turns do not
    /// persist) does not hand it the lead, and keeps it until it needs as many (without the
    /// `turn-lead` rule: while it needs fewer).
    private var turningLeads = false

    private mutating func updateTurningLead() {
        guard let turning = inUse.firstIndex(of: .turning) else { return }
        guard inUse.count > 1 else { turningLeads = true; return }
        let straight = costs[bestStraight], own = costs[turning]
        if !useTurnLead || turningLeads {
            turningLeads = own < straight
        } else {
            turningLeads = Double(own) + Double(straight).squareRoot() < Double(straight)
        }
    }

    /// Advances every shadow by `fix`, which `history` already holds as its newest entry.
    mutating func observe(_ fix: Fix, history: FixHistory) {
        let time = fix.time.timeIntervalSince1970
        // First which shadows report here and how much history their estimators need, so the
        // history is projected once, and only as far back as needed (hold needs none).
        var reporting: UInt32 = 0
        var lookBack = -1.0
        for index in shadows.indices where shadows[index].misses(fix, at: time, by: epsilon) {
            reporting |= 1 << UInt32(index)
            lookBack = max(lookBack, Self.lookBack(of: inUse[index], for: fix))
        }
        guard reporting != 0 else { return }
        let frame = Frame(fix, time: time)
        if lookBack >= 0 { project(history, into: frame, within: lookBack) }
        for index in shadows.indices where reporting & (1 << UInt32(index)) != 0 {
            if shadows[index].hasReported { costs[index] += 1 }
            let velocity = sendable(velocity(inUse[index], points: points, fix: fix), in: frame)
            let rate = inUse[index] == .turning && velocity != nil ? Self.turnRate(points: points) : nil
            shadows[index].report(from: frame, velocity: velocity, maxSilence: maxSilence, turnRate: rate)
        }
        updateTurningLead()
    }

    /// How many seconds of history `estimator` reads at `fix` (0: the newest two fixes only;
    /// negative: none).
    private static func lookBack(of estimator: Estimator, for fix: Fix) -> Double {
        switch estimator {
        case .hold: -1
        case .turning: Self.turnWindow
        case .measured: fix.measuredVelocity == nil ? 0 : -1
        case .lastTwo: 0
        case .window(let seconds): seconds
        }
    }

    /// Fills ``points`` with the remembered fixes of the last `seconds` (and the newest two in any
    /// case, when no older than ``SentFrame/reach``), newest first, in `frame`: what
    /// ``SentFrame/recentPoints(history:fix:within:)`` gives, without allocating per fix.
    private mutating func project(_ history: FixHistory, into frame: Frame, within seconds: Double) {
        points.removeAll(keepingCapacity: true)
        for age in 0..<history.count {
            let entry = history[age]
            let tau = entry.time - frame.tst
            if tau < -seconds, age >= 2 || tau < -SentFrame.reach { break }
            var dλ = entry.longitude - frame.longitude
            if dλ > 180 { dλ -= 360 } else if dλ < -180 { dλ += 360 }
            points.append(SentFrame.Point(
                tau: tau, east: dλ * frame.metresPerDegreeLongitude,
                north: (entry.latitude - frame.latitude) * Shadow.metresPerDegreeLatitude
            ))
        }
    }

    /// `velocity` as dead reckoning's guard would send it: rounded as on the wire, `nil` (hold)
    /// when it is missing, zero after rounding, faster than `maxSpeed`, or would already miss the
    /// fix itself by its own time (the wire's `tst` is rounded down to the second).
    private func sendable(_ velocity: Velocity?, in frame: Frame) -> (east: Double, north: Double)? {
        guard let velocity else { return nil }
        let speed = velocity.speed
        guard speed.isFinite, maxSpeed.map({ speed <= $0 }) ?? true else { return nil }
        let east = LocationMessage.roundVelocity(velocity.east), north = LocationMessage.roundVelocity(velocity.north)
        guard east != 0 || north != 0 else { return nil }
        let dx = frame.offset.east - east * frame.fraction, dy = frame.offset.north - north * frame.fraction
        return dx * dx + dy * dy > epsilon * epsilon ? nil : (east, north)
    }

    /// The frame of a report at one fix, shared by every shadow that reports there: the fix's
    /// position rounded as the wire rounds it, its scale, and the fix's own offset and time past
    /// the wire's `tst`.
    private struct Frame {
        var latitude: Double
        var longitude: Double
        var metresPerDegreeLongitude: Double
        var tst: Double
        var fraction: Double
        var offset: (east: Double, north: Double)

        init(_ fix: Fix, time: Double) {
            latitude = LocationMessage.roundCoordinate(fix.latitude)
            longitude = LocationMessage.roundCoordinate(fix.longitude)
            metresPerDegreeLongitude = Shadow.metresPerDegreeLatitude * cos(latitude * .pi / 180)
            tst = time.rounded(.down)
            fraction = time - tst
            offset = ((fix.longitude - longitude) * metresPerDegreeLongitude, (fix.latitude - latitude) * Shadow.metresPerDegreeLatitude)
        }
    }

    /// One estimator's shadow of dead reckoning, in plain fields: what its last report displays,
    /// checked in the plane of that report (``DisplayTracker``'s planar test without the exact
    /// great-circle settlement near the threshold, which only shifts a shadow's count by a rare
    /// report and keeps the per-fix cost to a few multiplications).
    private struct Shadow {
        static let metresPerDegreeLatitude = Geodesy.earthRadius * .pi / 180
        private(set) var hasReported = false
        private var latitude = 0.0, longitude = 0.0, metresPerDegreeLongitude = 0.0
        private var east = 0.0, north = 0.0, tst = 0.0, silenceAt = Double.infinity, turnRate: Double? = nil

        /// Whether the shadow reports at `fix`: its display misses it by more than `epsilon`, or
        /// it has extrapolated for `maxSilence` (or it has not reported yet).
        func misses(_ fix: Fix, at time: Double, by epsilon: Double) -> Bool {
            guard hasReported, time < silenceAt else { return true }
            var dλ = fix.longitude - longitude
            if dλ > 180 { dλ -= 360 } else if dλ < -180 { dλ += 360 }
            let elapsed = max(time - tst, 0)
            let moved = turnRate == nil ? (east: east * elapsed, north: north * elapsed)
                : LocationMessage.extrapolatedOffset(east: east, north: north, turnRate: turnRate, seconds: elapsed)
            let dx = dλ * metresPerDegreeLongitude - moved.east
            let dy = (fix.latitude - latitude) * Self.metresPerDegreeLatitude - moved.north
            return dx * dx + dy * dy > epsilon * epsilon
        }

        /// Remembers a report sent from `frame` with `velocity` (nil holds), extrapolated for at
        /// most `maxSilence`.
        mutating func report(from frame: Frame, velocity: (east: Double, north: Double)?, maxSilence: Double, turnRate: Double? = nil) {
            self.turnRate = velocity == nil ? nil : turnRate.map(LocationMessage.roundVelocity).flatMap { $0 == 0 ? nil : $0 }
            hasReported = true
            latitude = frame.latitude
            longitude = frame.longitude
            metresPerDegreeLongitude = frame.metresPerDegreeLongitude
            tst = frame.tst
            east = velocity?.east ?? 0
            north = velocity?.north ?? 0
            silenceAt = velocity == nil ? .infinity : tst + maxSilence
        }
    }

    /// How far back (s) the turning estimator looks: 8 s.
    static let turnWindow = 8.0

    /// The recent turn rate in degrees per second (counter-clockwise positive): the mean heading
    /// change per second over the segments of the last ``turnWindow`` seconds (at least the newest
    /// three fixes), or `nil` when fewer than three fixes are that recent or a segment is shorter
    /// than 10 cm.
    static func turnRate(points: [SentFrame.Point]) -> Double? {
        var segments = 0
        while segments + 1 < points.count, points[segments + 1].tau >= points[0].tau - turnWindow - 1e-9 { segments += 1 }
        guard segments >= 2 else { return nil }
        func heading(_ s: Int) -> Double? {
            let dx = points[s].east - points[s + 1].east, dy = points[s].north - points[s + 1].north
            guard dx * dx + dy * dy > 0.01 else { return nil }
            return atan2(dy, dx)
        }
        guard let newest = heading(0), let oldest = heading(segments - 1) else { return nil }
        // Unwrap the heading change segment by segment.
        var turn = 0.0, previous = oldest
        for s in stride(from: segments - 2, through: 0, by: -1) {
            guard let h = heading(s) else { return nil }
            var step = h - previous
            if step > .pi { step -= 2 * .pi } else if step < -.pi { step += 2 * .pi }
            turn += step
            previous = h
        }
        _ = newest
        let span = (points[0].tau + points[1].tau) / 2 - (points[segments - 1].tau + points[segments].tau) / 2
        guard span > 0 else { return nil }
        return turn / span * 180 / .pi
    }

    /// The last two fixes' velocity, or, when the receiver measured `speed` (Doppler, steadier
    /// than a difference of two noisy positions), that speed along the last two fixes' heading.
    /// A measured speed of zero gives zero: the receiver says it stands still.
    static func lastTwo(points: [SentFrame.Point], speed: Double?) -> Velocity? {
        guard let heading = SentFrame.lastTwo(points: points) else { return nil }
        guard let speed, speed.isFinite, speed >= 0 else { return heading }
        let length = heading.speed
        guard length > 0 else { return heading }
        return Velocity(east: heading.east / length * speed, north: heading.north / length * speed)
    }

    /// The velocity `estimator` gives for `points` (newest first, in the sent frame), or `nil`
    /// (hold).
    func velocity(_ estimator: Estimator, points: [SentFrame.Point], fix: Fix) -> Velocity? {
        let estimate: Velocity?
        switch estimator {
        case .lastTwo:
            estimate = SentFrame.lastTwo(points: points)
        case .measured:
            // Below walking pace a receiver's speed is its noise: a parked receiver keeps
            // measuring a few decimetres per second (and a frozen course).
            if useParked, let speed = fix.speed, speed >= 0, speed < Self.parkedSpeed { return nil }
            estimate = fix.measuredVelocity ?? Self.lastTwo(points: points, speed: fix.speed)
        case .hold:
            estimate = nil
        case .turning:
            guard let straight = SentFrame.lastTwo(points: points) else { estimate = nil; break }
            guard let rate = Self.turnRate(points: points), points.count >= 2 else { estimate = straight; break }
            // The last segment's velocity is that of its midpoint: turn it on by half a segment.
            let angle = rate * .pi / 180 * (points[0].tau - points[1].tau) / 2
            estimate = Velocity(east: straight.east * cos(angle) - straight.north * sin(angle),
                                north: straight.north * cos(angle) + straight.east * sin(angle))
        case .window(let seconds):
            var sumTE = 0.0, sumTN = 0.0, sumTT = 0.0
            for point in points {
                if point.tau < -seconds { break }
                sumTE += point.tau * point.east
                sumTN += point.tau * point.north
                sumTT += point.tau * point.tau
            }
            estimate = sumTT > 0 ? Velocity(east: sumTE / sumTT, north: sumTN / sumTT) : SentFrame.lastTwo(points: points)
        }
        return estimate
    }
}
