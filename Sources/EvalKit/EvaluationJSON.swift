import Foundation
import WhereaboutsCore

/// The JSON form of the evaluation tables (`--format json`): the same numbers, machine-readable.
package struct EvaluationJSON: Sendable, Codable {
    /// One entry per track.
    package var tracks: [Track]

    /// One track's numbers.
    package struct Track: Sendable, Codable {
        /// The track's name.
        package var name: String
        /// Fixes the source read.
        package var fixes: Int
        /// Fixes the filters accepted.
        package var accepted: Int
        /// The accepted track's duration in seconds.
        package var durationSeconds: Double
        /// Rejections by reason: the source's reasons and the filters' (`too-old`, `too-fast`, ...).
        package var rejected: [String: Int]
        /// One entry per policy.
        package var policies: [PolicyEvaluation]
    }

    /// Builds the JSON form of `evaluations`.
    package init(_ evaluations: [TrackEvaluation]) {
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
    package func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
