import Foundation
import WhereaboutsCore

/// SPEC §5's measures of one policy on one accepted track.
package struct PolicyEvaluation: Sendable, Hashable, Codable {
    /// The policy's name, such as `bounded(50m)`.
    package var policy: String
    /// The live error the policy promises under `predict`, when it promises one.
    package var errorBound: Double?
    /// Accepted fixes the policy saw.
    package var fixes: Int
    /// Reports it made.
    package var reports: Int
    /// Reports per hour of track time (0 when the track lasts no time).
    package var reportsPerHour: Double
    /// Live error under the `hold` display model: the last reported position.
    package var holdError: ErrorSummary
    /// Live error under the `predict` display model: the last message's displayed position.
    package var predictError: ErrorSummary
    /// The largest distance between a fix and the straight line between the reports around it.
    package var maxTrackError: Double
    /// Bytes on the wire: JSON payloads inside QoS 1 MQTT PUBLISH packets (see ``WireCost``),
    /// heartbeats included when counted.
    package var bytes: Int
    /// Radio wake-ups: reports (and heartbeats, when counted) more than the LTE tail after the
    /// previous message (the first counts).
    package var wakeUps: Int
    /// Estimated radio energy in joules: wake-ups times the energy of one (see ``RadioEnergy``).
    package var energy: Double
    /// How many reports carried each trigger letter.
    package var triggers: [String: Int]
    /// Heartbeats sent while nothing else was (see ``HeartbeatModel``); their bytes are in
    /// ``bytes`` and their wake-ups in ``wakeUps``. 0 when heartbeats are not counted.
    package var heartbeats: Int = 0
    /// Reports divided by the offline optimum's reports at the same epsilon (``OfflineOptimum``),
    /// when the evaluation computed the optimum; `nil` otherwise or when the optimum made none.
    package var ratioToOptimum: Double?

    /// Sets ``ratioToOptimum`` from the optimum's report count.
    package mutating func compare(toOptimum optimumReports: Int) {
        ratioToOptimum = optimumReports > 0 ? Double(reports) / Double(optimumReports) : nil
    }
}
