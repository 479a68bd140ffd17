import Foundation
import WhereaboutsCore

/// The JSON form of the evaluation tables (`--format json`): the same numbers, machine-readable.
public struct EvaluationJSON: Sendable, Codable {
    /// One entry per track.
    public var tracks: [Track]

    /// One track's numbers.
    public struct Track: Sendable, Codable {
        /// The track's name.
        public var name: String
        /// Fixes the source read.
        public var fixes: Int
        /// Fixes the filters accepted.
        public var accepted: Int
        /// The accepted track's duration in seconds.
        public var durationSeconds: Double
        /// Rejections by reason: the source's reasons and the filters' (`too-old`, `too-fast`, ...).
        public var rejected: [String: Int]
        /// One entry per policy.
        public var policies: [PolicyEvaluation]
    }

    /// Builds the JSON form of `evaluations`.
    public init(_ evaluations: [TrackEvaluation]) {
        tracks = evaluations.map { evaluation in
            var rejected = evaluation.sourceRejections
            for reason in FixFilter.Reason.allCases { rejected[reason.rawValue] = evaluation.filterRejections[reason] }
            return Track(
                name: evaluation.name, fixes: evaluation.readFixes, accepted: evaluation.track.count,
                durationSeconds: evaluation.duration, rejected: rejected,
                policies: evaluation.runs.map(\.evaluation)
            )
        }
    }

    /// The pretty-printed JSON text, keys sorted.
    public func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
