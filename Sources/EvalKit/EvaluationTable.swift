import Foundation
import WhereaboutsCore

/// Renders a track's evaluation as an aligned plain-text table, one row per policy.
package enum EvaluationTable {
    /// The column headings, in order.
    package static let headings = [
        "policy", "reports", "vs optimum", "reports/h", "hold max m", "hold p95 m", "predict max m", "predict p95 m",
        "track max m", "bytes", "heartbeats", "wake-ups", "energy J",
    ]

    /// The table for `evaluation`, preceded by a line with the fix and rejection counts.
    package static func render(_ evaluation: TrackEvaluation) -> String {
        var lines: [String] = []
        let hours = evaluation.duration / 3600
        lines.append("\(evaluation.name): \(evaluation.readFixes) fixes read, \(evaluation.track.count) accepted over \(String(format: "%.2f", hours)) h")
        lines.append("  rejected: " + rejectionSummary(evaluation))
        let rows = evaluation.runs.map { row($0.evaluation) }
        lines.append(contentsOf: align([headings] + rows).map { "  " + $0 })
        return lines.joined(separator: "\n") + "\n"
    }

    /// "none", or each non-zero reason with its count, source reasons first.
    static func rejectionSummary(_ evaluation: TrackEvaluation) -> String {
        var parts = evaluation.sourceRejections.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        for reason in FixFilter.Reason.allCases where evaluation.filterRejections[reason] > 0 {
            parts.append("\(reason.rawValue) \(evaluation.filterRejections[reason])")
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    static func row(_ e: PolicyEvaluation) -> [String] {
        [
            e.policy, String(e.reports), ratio(e.ratioToOptimum), String(format: "%.1f", e.reportsPerHour),
            metres(e.holdError.max), metres(e.holdError.p95), metres(e.predictError.max), metres(e.predictError.p95),
            metres(e.maxTrackError), String(e.bytes), String(e.heartbeats), String(e.wakeUps), String(format: "%.0f", e.energy),
        ]
    }

    static func metres(_ value: Double) -> String { String(format: "%.1f", value) }

    /// A ratio to the optimum with two decimals, or `-` when there is none.
    static func ratio(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-" }

    /// Pads each column to its widest cell: the first column left-aligned, the rest right-aligned.
    static func align(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
    }
}
