import Foundation
import WhereaboutsCore

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
    /// Bytes on the wire: JSON payloads inside QoS 1 MQTT PUBLISH packets (see ``WireCost``),
    /// heartbeats included when counted.
    public var bytes: Int
    /// Radio wake-ups: reports (and heartbeats, when counted) more than the LTE tail after the
    /// previous message (the first counts).
    public var wakeUps: Int
    /// Estimated radio energy in joules: wake-ups times the energy of one (see ``RadioEnergy``).
    public var energy: Double
    /// How many reports carried each trigger letter.
    public var triggers: [String: Int]
    /// Heartbeats sent while nothing else was (see ``HeartbeatModel``); their bytes are in
    /// ``bytes`` and their wake-ups in ``wakeUps``. 0 when heartbeats are not counted.
    public var heartbeats: Int = 0
    /// Reports divided by the offline optimum's reports at the same epsilon (``OfflineOptimum``),
    /// when the evaluation computed the optimum; `nil` otherwise or when the optimum made none.
    public var ratioToOptimum: Double?

    /// Sets ``ratioToOptimum`` from the optimum's report count.
    public mutating func compare(toOptimum optimumReports: Int) {
        ratioToOptimum = optimumReports > 0 ? Double(reports) / Double(optimumReports) : nil
    }
}
