import Foundation

/// Whereabouts' own policy: the position a dashboard displays stays within `epsilon` metres of
/// every accepted fix, with as few reports as it can manage.
///
/// The policy keeps the exact wire message it last sent and, for every fix, asks what a dashboard
/// shows at that fix's time (``LocationMessage/displayedPosition(at:)``, from the rounded wire
/// values). When that misses the fix by more than `epsilon`, the fix itself is reported, so the
/// live error under the `predict` display model never exceeds `epsilon` at any accepted fix. While
/// dashboards extrapolate, a report goes out at least every `maxSilence` seconds (trigger `T`).
///
/// What makes it send fewer reports than plain dead reckoning is the velocity it sends: the one
/// that best explains the recent trajectory (``VelocityFit``), and no velocity at all (hold) when
/// the device is standing still, which also costs no `maxSilence` reports. Trigger letters: `f`
/// first, `t` prediction missed, `T` maxSilence, `k` moving to stationary, `v` stationary to
/// moving.
public struct BoundedPolicy: ErrorBoundedPolicy {
    /// The policy's parameters.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The largest tolerated distance (m) between a fix and the displayed position. Default 50 m.
        public var epsilon: Double
        /// The longest silence (s) while dashboards extrapolate; sent as `ms`. Default 120 s.
        public var maxSilence: Int
        /// Below this speed (m/s) a fitted velocity is not sent: dashboards hold. Default 0.2 m/s.
        public var stationarySpeed: Double
        /// How far (as a fraction of `epsilon`) a past fix may lie from a candidate velocity's line
        /// and still count as explained by it. Default 0.1 (measured best on the shared traces).
        public var fitTolerance: Double

        /// Creates parameters; every argument defaults to the documented value.
        public init(
            epsilon: Double = 50,
            maxSilence: Int = Self.defaultMaxSilence,
            stationarySpeed: Double = 0.2,
            fitTolerance: Double = 0.1
        ) {
            self.epsilon = epsilon
            self.maxSilence = maxSilence
            self.stationarySpeed = stationarySpeed
            self.fitTolerance = fitTolerance
        }

        /// The default `maxSilence`: 120 seconds. Only a message that carries a velocity puts a
        /// prediction in force, so only moving devices pay for it (held positions cost no `T`
        /// reports).
        public static let defaultMaxSilence = 120

        /// Checks that every parameter is in range.
        public func validate() throws(PolicySettingsError) {
            try validatePrediction(epsilon: epsilon, maxSilence: maxSilence)
            guard stationarySpeed >= 0, stationarySpeed.isFinite else {
                throw .negative(parameter: "stationary-speed", value: stationarySpeed)
            }
            try requirePositive(fitTolerance, "fit-tolerance")
        }
    }

    /// The looser band (as a fraction of `epsilon`) that breaks ties between candidate velocities
    /// that explain the recent fixes equally long within `fitTolerance`: 0.5 (measured best on
    /// the shared traces and the simulator's scenarios; see BENCHMARKS.md).
    public static let looseFitTolerance = 0.5

    /// How many recent fixes the policy remembers for its velocity fit.
    public static let historyCapacity = 256

    /// The parameters in force.
    public let parameters: Parameters
    private var guardian: PredictionGuard
    private var history = FixHistory(capacity: Self.historyCapacity)

    /// Creates the policy.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        guardian = PredictionGuard(epsilon: parameters.epsilon, maxSilence: parameters.maxSilence)
    }

    /// The policy's `epsilon`.
    public var errorBound: Double { parameters.epsilon }

    /// `bounded(50m)`, with the epsilon in force.
    public var name: String { "bounded(\(formatted(parameters.epsilon))m)" }

    /// Reports the fix when the displayed position misses it by more than `epsilon` or dashboards
    /// have extrapolated for `maxSilence` seconds.
    public mutating func consider(_ fix: Fix) -> Report? {
        history.append(fix)
        guard let trigger = guardian.trigger(for: fix) else { return nil }
        return report(fix, trigger: trigger)
    }

    /// Reports the fix with the best-fitting velocity.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        history.append(fix)
        return report(fix, trigger: trigger)
    }

    private mutating func report(_ fix: Fix, trigger: Trigger) -> Report {
        let origin = Coordinate(
            latitude: LocationMessage.roundCoordinate(fix.latitude),
            longitude: LocationMessage.roundCoordinate(fix.longitude)
        )
        let velocity = VelocityFit.choose(
            history: history,
            origin: origin,
            tst: fix.time.timeIntervalSince1970.rounded(.down),
            tolerance: parameters.fitTolerance * parameters.epsilon,
            looseTolerance: Self.looseFitTolerance * parameters.epsilon,
            stationarySpeed: parameters.stationarySpeed,
            measured: fix.measuredVelocity
        )
        return guardian.report(fix, trigger: trigger, velocity: velocity)
    }
}
