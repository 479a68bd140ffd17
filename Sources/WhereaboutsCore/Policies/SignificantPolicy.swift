#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The frugal significant-change profile: reports the first fix and then a fix only when it is at
/// least `significantDistance` metres AND at least `significantInterval` seconds from the last
/// report, like the phone platforms' significant-change service. Reports carry no velocity.
public struct SignificantPolicy: ReportingPolicy {
    /// The policy's parameters.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Minimum metres between reports. Default 500 m.
        public var significantDistance: Double
        /// Minimum seconds between reports. Default 300 s (5 min).
        public var significantInterval: Double

        /// Creates parameters; the defaults are 500 m and 300 s.
        public init(significantDistance: Double = 500, significantInterval: Double = 300) {
            self.significantDistance = significantDistance
            self.significantInterval = significantInterval
        }

        /// Checks that both parameters are positive finite numbers.
        public func validate() throws(PolicySettingsError) {
            try requirePositive(significantDistance, "significant-distance")
            try requirePositive(significantInterval, "significant-interval")
        }
    }

    /// The parameters in force.
    public let parameters: Parameters
    private var lastReported: Fix?

    /// Creates the policy.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// `significant`.
    public var name: String { "significant" }

    /// Reports the fix when it is far enough and late enough after the last report.
    public mutating func consider(_ fix: Fix) -> Report? {
        guard let lastReported else { return forceReport(fix, trigger: .firstPublish) }
        guard fix.time.timeIntervalSince(lastReported.time) >= parameters.significantInterval,
              fix.distance(from: lastReported) >= parameters.significantDistance
        else { return nil }
        return forceReport(fix, trigger: .moving)
    }

    /// Reports the fix and measures the next distance and interval from it.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        lastReported = fix
        return Report(fix: fix, trigger: trigger)
    }
}
