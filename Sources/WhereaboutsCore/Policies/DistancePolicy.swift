#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The distance baseline: reports the first fix and then every fix at least `distance` metres from
/// the last reported one. Reports carry no velocity.
public struct DistancePolicy: ReportingPolicy {
    /// The policy's parameter.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Metres between reports. Default 50 m.
        public var distance: Double

        /// Creates parameters; the default is 50 m.
        public init(distance: Double = 50) {
            self.distance = distance
        }

        /// Checks that the distance is a positive finite number.
        public func validate() throws(PolicySettingsError) {
            try requirePositive(distance, "distance")
        }
    }

    /// The parameters in force.
    public let parameters: Parameters
    private var lastReported: Fix?

    /// Creates the policy.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
    }

    /// `distance(50m)`, with the distance in force.
    public var name: String { "distance(\(formatted(parameters.distance))m)" }

    /// Reports the fix when it is `distance` metres or more from the last report.
    public mutating func consider(_ fix: Fix) -> Report? {
        guard let lastReported else { return forceReport(fix, trigger: .firstPublish) }
        guard fix.distance(from: lastReported) >= parameters.distance else { return nil }
        return forceReport(fix, trigger: .moving)
    }

    /// Reports the fix and measures the next distance from it.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        lastReported = fix
        return Report(fix: fix, trigger: trigger)
    }
}
