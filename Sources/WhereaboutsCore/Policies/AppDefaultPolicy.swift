#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a user would otherwise run: a tracking app's default reporting rule, a distance and two
/// intervals. A fix is reported when it is at least `distance` metres from the last report and at
/// least `minInterval` seconds after it, or when `maxInterval` seconds have passed since it.
/// Reports carry no velocity: dashboards hold the last position.
///
/// Two apps' documented defaults are built in (``ownTracksMove``, ``traccarClient``); the
/// OwnTracks significant-change mode is ``SignificantPolicy``.
public struct AppDefaultPolicy: ReportingPolicy {
    /// The rule's parameters.
    public struct Parameters: Sendable, Hashable, Codable {
        /// The policy's name in tables, such as `owntracks-move`.
        public var name: String
        /// Metres from the last report before a fix counts as moved.
        public var distance: Double
        /// Seconds after the last report before a moved fix is reported (0: at once).
        public var minInterval: Double
        /// Seconds after the last report after which any fix is reported.
        package var maxInterval: Double

        /// Creates parameters.
        public init(name: String, distance: Double, minInterval: Double, maxInterval: Double) {
            self.name = name
            self.distance = distance
            self.minInterval = minInterval
            self.maxInterval = maxInterval
        }
    }

    /// The OwnTracks app's move mode with its defaults: a report whenever the device has moved
    /// `locatorDisplacement` (100 m) or `locatorInterval` (300 s) has passed, whichever comes
    /// first (OwnTracks booklet, "Location data", iOS move mode).
    package static let ownTracksMove = Parameters(name: "owntracks-move", distance: 100, minInterval: 0, maxInterval: 300)

    /// The Traccar Client's defaults (traccar/traccar-client `lib/preferences.dart`,
    /// `Preferences.migrate`): distance filter 75 m, fastest interval 30 s, interval 300 s; the
    /// angle filter is off (0) by default.
    package static let traccarClient = Parameters(name: "traccar", distance: 75, minInterval: 30, maxInterval: 300)

    /// The parameters in force.
    public let parameters: Parameters
    private var lastReported: Fix?

    /// Creates the policy.
    public init(parameters: Parameters) {
        self.parameters = parameters
    }

    /// The parameters' name.
    public var name: String { parameters.name }

    /// Reports the fix when it has moved far enough late enough, or the longest interval is over.
    public mutating func consider(_ fix: Fix) -> Report? {
        guard let lastReported else { return forceReport(fix, trigger: .firstPublish) }
        let elapsed = fix.time.timeIntervalSince(lastReported.time)
        if elapsed >= parameters.maxInterval { return forceReport(fix, trigger: .timePassed) }
        guard elapsed >= parameters.minInterval, fix.distance(from: lastReported) >= parameters.distance else { return nil }
        return forceReport(fix, trigger: .moving)
    }

    /// Reports the fix and measures the next distance and interval from it.
    public mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report {
        lastReported = fix
        return Report(fix: fix, trigger: trigger)
    }
}
