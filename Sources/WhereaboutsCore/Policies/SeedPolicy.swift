#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The source articles' adaptive policy, exactly as SPEC §2 states it.
///
/// A fix is reported when it lies at least `filter` metres from the last reported fix; the first
/// fix is always reported. After each report the filter adapts to the reported fix's speed: below
/// `minSpeed` it returns to `minFilter` (when it differs by more than 0.1 m); otherwise, when the
/// speed differs from `filter / minInterval` by more than 10 %, it becomes
/// `floor(speed + 0.5) * minInterval`, so a moving device reports about every `minInterval`.
/// Reports carry no velocity: dashboards hold the last position.
public struct SeedPolicy: ReportingPolicy {
    /// The policy's three parameters.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Below this speed (m/s) the policy reports by distance. Default 3 m/s.
        public var minSpeed: Double
        /// The distance filter (m) used when slow. Default 50 m.
        public var minFilter: Double
        /// The time (s) between reports when moving. Default 10 s.
        public var minInterval: Double

        /// Creates parameters; every argument defaults to the article's value.
        public init(minSpeed: Double = 3, minFilter: Double = 50, minInterval: Double = 10) {
            self.minSpeed = minSpeed
            self.minFilter = minFilter
            self.minInterval = minInterval
        }

        /// Checks that every parameter is a positive finite number.
        public func validate() throws(PolicySettingsError) {
            try requirePositive(minSpeed, "min-speed")
            try requirePositive(minFilter, "min-filter")
            try requirePositive(minInterval, "min-interval")
        }
    }

    /// The parameters in force.
    public let parameters: Parameters
    /// The current distance filter in metres.
    public private(set) var filter: Double
    private var lastReported: Fix?
    private var previous: Fix?

    /// Creates the policy in its initial state (`filter = minFilter`).
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        filter = parameters.minFilter
    }

    /// `seed`.
    public var name: String { "seed" }

    /// Reports the fix when it is at least `filter` metres from the last reported one.
    public mutating func consider(_ fix: Fix) -> Report? {
        let speed = speed(of: fix)
        guard let lastReported else { return report(fix, trigger: .firstPublish, speed: speed) }
        guard fix.distance(from: lastReported) >= filter else { return nil }
        return report(fix, trigger: .moving, speed: speed)
    }

    /// Reports the fix and adapts the filter as if the policy had chosen it.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        report(fix, trigger: trigger, speed: speed(of: fix))
    }

    /// The fix's own speed when the source gave one, else the speed from the previous fix.
    private mutating func speed(of fix: Fix) -> Double {
        defer { previous = fix }
        if let speed = fix.speed, speed.isFinite { return speed }
        return previous.flatMap { fix.impliedSpeed(from: $0) } ?? 0
    }

    private mutating func report(_ fix: Fix, trigger: Trigger, speed v: Double) -> Report {
        lastReported = fix
        if v < parameters.minSpeed {
            if abs(filter - parameters.minFilter) > 0.1 { filter = parameters.minFilter }
        } else {
            let lastSpeed = filter / parameters.minInterval
            if abs(lastSpeed - v) / lastSpeed > 0.1 {
                filter = (v + 0.5).rounded(.down) * parameters.minInterval
            }
        }
        return Report(fix: fix, trigger: trigger)
    }
}

/// Throws `notPositive` unless `value` is a positive finite number.
func requirePositive(_ value: Double, _ parameter: String) throws(PolicySettingsError) {
    guard value > 0, value.isFinite else { throw .notPositive(parameter: parameter, value: value) }
}
