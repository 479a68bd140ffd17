#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whereabouts' own policy: the position a dashboard displays stays within `epsilon` metres of
/// every accepted fix, with as few reports as it can manage.
///
/// The policy keeps the exact wire message it last sent and, for every fix, asks what a dashboard
/// shows at that fix's time (``LocationMessage/displayedPosition(at:)``, from the rounded wire
/// values). When that misses the fix by more than `epsilon`, the fix itself is reported, so the
/// live error under the `predict` display model never exceeds `epsilon` at any accepted fix. While
/// dashboards extrapolate, a report goes out at least every `maxSilence` seconds (trigger `T`).
///
/// What makes it send fewer reports than plain dead reckoning is what a report carries: the
/// velocity of the estimator (receiver velocity, its speed along the last two fixes' heading, else
/// the last two fixes'; least squares over 8 s; hold; turning, which also sends a turn rate `tr`
/// so that dashboards follow an arc) whose shadow of dead reckoning has needed the fewest reports on this track so far
/// (`VelocityExperts`); a held message (hold leads, or the receiver is parked) costs no
/// `maxSilence` reports. Why each rule is kept, measured on datasets it was
/// not chosen on (leave-one-dataset-out), is in docs/policies.md, "Why each rule is there". Two
/// rules read a
/// quadratic fit of the last few fixes (when it explains them within ``kinematicTolerance``):
/// while the device turns (at least ``turnRate`` at ``turnSpeed`` or faster, and the receiver
/// measured no velocity) the freshest velocity, that of the last two fixes, is sent; and while it
/// brakes towards a stop (at least ``brakingDeceleration``, stopping within ``brakingTime``) the
/// report carries a shorter extrapolation horizon (`ms`), so dashboards move the position on for
/// that long and then hold it where the device is expected to stop (docs/policies.md, "Turning
/// and braking"); such a display stops moving before `maxSilence` and needs no `T` report.
///
/// A moving report other than a turning one is sent from ``lag`` times `epsilon` behind the fix along its
/// velocity, which leaves more room for the device to slow down than to speed up.
///
/// Trigger letters: `f` first, `t` prediction missed, `T` maxSilence, `k` moving to stationary,
/// `v` stationary to moving.
public struct BoundedPolicy: ErrorBoundedPolicy {
    /// The policy's parameters.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The largest tolerated distance (m) between a fix and the displayed position. Default 50 m.
        public var epsilon: Double
        /// The longest silence (s) while dashboards extrapolate; sent as `ms`. Default 120 s.
        public var maxSilence: Int
        /// Accepted for configuration compatibility and validated, but no longer used: the rule
        /// that read it (no velocity below this speed) did not pay off on left-out data without a
        /// silence limit (docs/policies.md). Default 0.2 m/s.
        public var stationarySpeed: Double
        /// Accepted for configuration compatibility and validated, but no longer used since issue
        /// 12 (docs/policies.md). Default 0.1.
        public var fitTolerance: Double
        /// The fastest velocity (m/s) a report may carry; `nil` for no cap. Default 100 m/s, the
        /// rejection filters' `maxSpeed` (`--max-speed` sets both).
        public var maxSpeed: Double?
        /// The rules switched off, to measure what each is worth (`whereabouts-eval --without`,
        /// `--ablate`); empty (the default) for the policy as documented.
        public var without: Set<Rule>

        /// Creates parameters; every argument defaults to the documented value.
        public init(
            epsilon: Double = 50,
            maxSilence: Int = Self.defaultMaxSilence,
            stationarySpeed: Double = 0.2,
            fitTolerance: Double = 0.1,
            maxSpeed: Double? = FixFilter.Settings.defaultMaxSpeed,
            without: Set<Rule> = []
        ) {
            self.epsilon = epsilon
            self.maxSilence = maxSilence
            self.stationarySpeed = stationarySpeed
            self.fitTolerance = fitTolerance
            self.maxSpeed = maxSpeed
            self.without = without
        }

        /// The default `maxSilence`: 120 seconds. Only a message that carries a velocity puts a
        /// prediction in force, so only moving devices pay for it (held positions cost no `T`
        /// reports).
        public static let defaultMaxSilence = 120

        /// Checks that every parameter is in range.
        public func validate() throws(PolicySettingsError) {
            try validatePrediction(epsilon: epsilon, maxSilence: maxSilence, maxSpeed: maxSpeed)
            guard stationarySpeed >= 0, stationarySpeed.isFinite else {
                throw .negative(parameter: "stationary-speed", value: stationarySpeed)
            }
            try requirePositive(fitTolerance, "fit-tolerance")
        }
    }

    /// How far (as a fraction of `epsilon`) the quadratic fit of the recent fixes may miss one of
    /// them and still be trusted by the turn and braking rules: 0.2.
    package static let kinematicTolerance = 0.2

    /// The turn rate (degrees per second) from which the last two fixes' velocity is sent: 5.
    public static let turnRate = 5.0

    /// The fitted speed (m/s) from which the turn rule applies: 2 m/s.
    package static let turnSpeed = 2.0

    /// The deceleration (m/s²) from which a report may carry a braking horizon: 0.2.
    package static let brakingDeceleration = 0.2

    /// The longest time to a stop (s) for which a report may carry a braking horizon: 30 s.
    package static let brakingTime = 30.0

    /// How close (as a fraction of `epsilon`) the display must stay to the predicted braking path
    /// when the braking horizon is chosen: 0.5.
    package static let brakingTolerance = 0.5

    /// How far behind the fix a moving report is sent from, along its velocity, as a fraction of
    /// `epsilon`: 0.1. A report goes out when the display misses, mostly while the motion changes,
    /// and what follows is more often slower progress along the line (braking, a bend, a winding
    /// path) than faster: a display that starts a little behind has `(1 + lag) epsilon` of room
    /// for the device to fall behind it, `(1 - lag) epsilon` to pull ahead. Chosen on half A of
    /// the corpus (0.05 to 0.3 measured; a position ahead of the fix sends more), and half B and
    /// the noisy copies agree (BENCHMARKS.md).
    public static let lag = 0.1

    /// How many recent fixes the policy remembers for its velocity fit.
    package static let historyCapacity = 256

    /// What shaped a report, for diagnosis (`whereabouts-eval --reports`): never read by the
    /// policy itself. Recorded at each report without allocating.
    package struct Choice: Sendable, Hashable {
        /// A rule that changed the report from the leader's plain velocity sent from the fix.
        package enum Shaping: String, Sendable, CaseIterable {
            /// The last two fixes' velocity while the fit turns.
            case turn
            /// A braking horizon shorter than `maxSilence`.
            case braking
            /// Sent from `lag` × ε behind the fix.
            case lag
            /// The receiver's speed was below `parkedSpeed`: held.
            case parked
            /// The guard held: the velocity would already miss the reported fix.
            case ownFix = "own-fix"
        }

        /// The estimator that led (``VelocityExperts/Estimator/name``).
        package var estimator = ""
        private var shapingBits: UInt8 = 0
        /// The reports each estimator's shadow had sent so far, in the order of ``estimators``
        /// (the first report not counted).
        package var shadowReports: [Int] = []
        /// The estimators in use, by name.
        package var estimators: [String] = []

        /// The rules that shaped the report, in declaration order.
        package var rules: [Shaping] {
            Shaping.allCases.enumerated().filter { shapingBits & (1 << UInt8($0.offset)) != 0 }.map(\.element)
        }

        mutating func note(_ rule: Shaping) {
            shapingBits |= 1 << UInt8(Shaping.allCases.firstIndex(of: rule) ?? 0)
        }

        init(estimator: String = "", shadowReports: [Int] = [], estimators: [String] = []) {
            self.estimator = estimator
            self.shadowReports = shadowReports
            self.estimators = estimators
        }
    }

    /// What shaped the last report; updated only when a report is made, so it costs nothing per
    /// fix.
    package private(set) var lastChoice = Choice()

    /// The parameters in force.
    public let parameters: Parameters
    private var guardian: PredictionGuard
    private var history = FixHistory(capacity: Self.historyCapacity)
    private var experts: VelocityExperts

    /// Creates the policy.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        guardian = PredictionGuard(epsilon: parameters.epsilon, maxSilence: parameters.maxSilence, maxSpeed: parameters.maxSpeed)
        experts = VelocityExperts(
            epsilon: parameters.epsilon, maxSilence: parameters.maxSilence, maxSpeed: parameters.maxSpeed,
            without: parameters.without
        )
    }

    /// The policy's `epsilon`.
    public var errorBound: Double { parameters.epsilon }

    /// `bounded(50m)`, with the epsilon in force; `bounded-without-braking+turn(50m)` with rules
    /// switched off.
    public var name: String {
        let without = parameters.without.isEmpty ? "" : "-without-" + parameters.without.sorted().map(\.rawValue).joined(separator: "+")
        return "bounded\(without)(\(formatted(parameters.epsilon))m)"
    }

    private func uses(_ rule: Rule) -> Bool { !parameters.without.contains(rule) }

    /// Reports the fix when the displayed position misses it by more than `epsilon` or dashboards
    /// have extrapolated for `maxSilence` seconds (not when the last report's horizon was shorter:
    /// that display has stopped moving).
    public mutating func consider(_ fix: Fix) -> Report? {
        history.append(fix)
        experts.observe(fix, history: history)
        guard let trigger = guardian.trigger(for: fix) else { return nil }
        return report(fix, trigger: trigger)
    }

    /// Reports the fix with the velocity the policy would choose for it.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        history.append(fix)
        experts.observe(fix, history: history)
        return report(fix, trigger: trigger)
    }

    private mutating func report(_ fix: Fix, trigger: Trigger) -> Report {
        let points = SentFrame.recentPoints(history: history, fix: fix, within: Kinematics.reach)
        let measured = fix.measuredVelocity
        var choice = Choice(estimator: experts.leader.name, shadowReports: experts.costs, estimators: experts.names)
        defer { lastChoice = choice }
        if experts.leader == .turning {
            // Turning has predicted best on this track so far: the arc, from the fix itself.
            let velocity = experts.velocity(.turning, points: points, fix: fix)
            let report = guardian.report(fix, trigger: trigger, velocity: velocity,
                                         turnRate: velocity == nil ? nil : VelocityExperts.turnRate(points: points))
            if velocity != nil, report.velocity == nil { choice.note(.ownFix) }
            return report
        }
        var velocity = experts.velocity(experts.leader, points: points, fix: fix)
        if experts.leader == .measured, velocity == nil, let speed = fix.speed, speed < VelocityExperts.parkedSpeed {
            choice.note(.parked)
        }
        var horizon: Int? = nil
        if let chosen = velocity, let motion = Kinematics.fit(points: points),
           motion.residual <= Self.kinematicTolerance * parameters.epsilon, motion.speed >= 0.2 {
            // Turning: the longer fits lag behind the heading; the last two fixes do not.
            if uses(.turn), measured == nil, motion.speed >= Self.turnSpeed, abs(motion.turnRate) >= Self.turnRate,
               let freshest = SentFrame.lastTwo(points: points) {
                velocity = freshest
                choice.note(.turn)
            }
            // Braking: move on for as long as the display follows the way to the stop, then hold.
            let deceleration = motion.deceleration
            if uses(.braking), deceleration >= Self.brakingDeceleration, motion.speed / deceleration <= Self.brakingTime {
                horizon = motion.brakingHorizon(
                    for: velocity ?? chosen,
                    tolerance: Self.brakingTolerance * parameters.epsilon,
                    maxSilence: parameters.maxSilence
                )
            }
        }
        let behind = uses(.lag) ? velocity.flatMap { lagging(fix, velocity: $0) } : nil
        let report = guardian.report(fix, trigger: trigger, velocity: velocity, horizon: horizon, position: behind)
        if report.velocity != nil, report.maxSilence.map({ $0 < parameters.maxSilence }) ?? false { choice.note(.braking) }
        if report.fix.latitude != fix.latitude || report.fix.longitude != fix.longitude { choice.note(.lag) }
        if velocity != nil, report.velocity == nil { choice.note(.ownFix) }
        return report
    }

    /// The position a moving report is sent from: ``lag`` times `epsilon` behind the fix along
    /// `velocity` (the guard sends from the fix itself when that would miss it).
    private func lagging(_ fix: Fix, velocity: Velocity) -> Coordinate? {
        let speed = velocity.speed
        guard speed > 0, speed.isFinite else { return nil }
        let back = Self.lag * parameters.epsilon / speed
        let origin = SentFrame.origin(of: fix)
        return LocalProjection(origin: origin).unproject(east: -velocity.east * back, north: -velocity.north * back)
    }
}
