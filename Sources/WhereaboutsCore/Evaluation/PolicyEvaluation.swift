import Foundation

/// The largest and the 95th-percentile error of one display model over a track, in metres.
public struct ErrorSummary: Sendable, Hashable, Codable {
    /// The largest error at any accepted fix.
    public var max: Double
    /// The 95th percentile (nearest rank) of the errors at the accepted fixes.
    public var p95: Double

    /// Summarises `errors`; both values are 0 for an empty list.
    public init(errors: [Double]) {
        guard !errors.isEmpty else {
            max = 0
            p95 = 0
            return
        }
        let sorted = errors.sorted()
        max = sorted[sorted.count - 1]
        let rank = Int((0.95 * Double(sorted.count)).rounded(.up))
        p95 = sorted[Swift.max(0, rank - 1)]
    }
}

/// SPEC §5's measures of one policy on one accepted track.
public struct PolicyEvaluation: Sendable, Hashable, Codable {
    /// The policy's name, such as `bounded(50m)`.
    public var policy: String
    /// The live error the policy promises under `predict`, when it promises one.
    public var errorBound: Double?
    /// Accepted fixes the policy saw.
    public var fixes: Int
    /// Reports it made.
    public var reports: Int
    /// Reports per hour of track time (0 when the track lasts no time).
    public var reportsPerHour: Double
    /// Live error under the `hold` display model: the last reported position.
    public var holdError: ErrorSummary
    /// Live error under the `predict` display model: the last message's displayed position.
    public var predictError: ErrorSummary
    /// The largest distance between a fix and the straight line between the reports around it.
    public var maxTrackError: Double
    /// Bytes on the wire: JSON payloads inside QoS 1 MQTT PUBLISH packets (see ``WireCost``).
    public var bytes: Int
    /// Radio wake-ups: reports more than the LTE tail after the previous one (the first counts).
    public var wakeUps: Int
    /// Estimated radio energy in joules: wake-ups times the energy of one (see ``RadioEnergy``).
    public var energy: Double
    /// How many reports carried each trigger letter.
    public var triggers: [String: Int]
    /// Reports divided by the offline optimum's reports at the same epsilon (``OfflineOptimum``),
    /// when the evaluation computed the optimum; `nil` otherwise or when the optimum made none.
    public var ratioToOptimum: Double?

    /// Sets ``ratioToOptimum`` from the optimum's report count.
    public mutating func compare(toOptimum optimumReports: Int) {
        ratioToOptimum = optimumReports > 0 ? Double(reports) / Double(optimumReports) : nil
    }
}

/// One report of an evaluation run: which accepted fix it reported and what went on the wire.
public struct EvaluatedReport: Sendable, Hashable {
    /// The index of the reported fix in the accepted track, from 0.
    public var index: Int
    /// The report the policy made.
    public var report: Report
    /// The message as sent, after wire rounding.
    public var message: LocationMessage

    /// Creates a report record.
    public init(index: Int, report: Report, message: LocationMessage) {
        self.index = index
        self.report = report
        self.message = message
    }
}

/// Everything an evaluation run produced: the measures, every report and the live error at every
/// fix under the `predict` model (for plots).
public struct PolicyRun: Sendable {
    /// The measures.
    public var evaluation: PolicyEvaluation
    /// Every report, in order.
    public var reports: [EvaluatedReport]
    /// The `predict` live error at each accepted fix, in metres.
    public var predictErrors: [Double]
}
