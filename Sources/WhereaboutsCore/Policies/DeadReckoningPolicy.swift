#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Plain dead reckoning, the baseline `bounded` must beat: each report carries the velocity
/// between the reported fix and the fix before it, and the next report goes out when the position
/// dashboards extrapolate from the last message (after wire rounding) misses a fix by more than
/// `epsilon`, or after `maxSilence` seconds of extrapolation. A velocity faster than `maxSpeed`
/// (a jump, a spike) is not sent: that report holds.
public struct DeadReckoningPolicy: ErrorBoundedPolicy {
    /// The policy's parameters.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The largest tolerated distance (m) between a fix and the displayed position. Default 50 m.
        public var epsilon: Double
        /// The longest silence (s) while dashboards extrapolate; sent as `ms`. Default 120 s.
        public var maxSilence: Int
        /// The fastest velocity (m/s) a report may carry; `nil` for no cap. Default 100 m/s, the
        /// rejection filters' `maxSpeed` (`--max-speed` sets both).
        public var maxSpeed: Double?

        /// Creates parameters; the defaults are 50 m, 120 s and 100 m/s.
        public init(
            epsilon: Double = 50,
            maxSilence: Int = BoundedPolicy.Parameters.defaultMaxSilence,
            maxSpeed: Double? = FixFilter.Settings.defaultMaxSpeed
        ) {
            self.epsilon = epsilon
            self.maxSilence = maxSilence
            self.maxSpeed = maxSpeed
        }

        /// Checks that every parameter is positive.
        public func validate() throws(PolicySettingsError) {
            try validatePrediction(epsilon: epsilon, maxSilence: maxSilence, maxSpeed: maxSpeed)
        }
    }

    /// The parameters in force.
    public let parameters: Parameters
    private var guardian: PredictionGuard
    private var previous: Fix?

    /// Creates the policy.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        guardian = PredictionGuard(epsilon: parameters.epsilon, maxSilence: parameters.maxSilence, maxSpeed: parameters.maxSpeed)
    }

    /// The policy's `epsilon`.
    public var errorBound: Double { parameters.epsilon }

    /// `dead-reckoning(50m)`, with the epsilon in force.
    public var name: String { "dead-reckoning(\(formatted(parameters.epsilon))m)" }

    /// Reports the fix when the extrapolated display misses it or has been silent too long.
    public mutating func consider(_ fix: Fix) -> Report? {
        defer { previous = fix }
        guard let trigger = guardian.trigger(for: fix) else { return nil }
        return report(fix, trigger: trigger)
    }

    /// Reports the fix with the velocity from the previous fix.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        defer { previous = fix }
        return report(fix, trigger: trigger)
    }

    private mutating func report(_ fix: Fix, trigger: Trigger) -> Report {
        guardian.report(fix, trigger: trigger, velocity: previous.flatMap { fix.impliedVelocity(from: $0) })
    }
}
