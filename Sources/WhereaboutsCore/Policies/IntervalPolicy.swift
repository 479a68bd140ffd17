#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The time baseline: reports the first fix and then every fix at least `interval` seconds after
/// the last report. Reports carry no velocity.
public struct IntervalPolicy: ReportingPolicy {
    /// The policy's parameter.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Seconds between reports. Default 10 s.
        public var interval: Double

        /// Creates parameters; the default is 10 s.
        public init(interval: Double = 10) {
            self.interval = interval
        }

        /// Checks that the interval is a positive finite number.
        public func validate() throws(PolicySettingsError) {
            try requirePositive(interval, "interval")
        }
    }

    /// The parameters in force.
    public let parameters: Parameters
    private var lastReported: Date?

    /// Creates the policy.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// `interval(10s)`, with the interval in force.
    public var name: String { "interval(\(formatted(parameters.interval))s)" }

    /// Reports the fix when `interval` seconds have passed since the last report.
    public mutating func consider(_ fix: Fix) -> Report? {
        guard let lastReported else { return forceReport(fix, trigger: .firstPublish) }
        guard fix.time.timeIntervalSince(lastReported) >= parameters.interval else { return nil }
        return forceReport(fix, trigger: .moving)
    }

    /// Reports the fix and restarts the interval.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        lastReported = fix.time
        return Report(fix: fix, trigger: trigger)
    }
}

/// A number for a policy name: no decimals when whole (`50`), else as few as needed (`2.5`).
package func formatted(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
