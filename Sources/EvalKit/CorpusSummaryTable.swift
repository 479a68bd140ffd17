import Foundation

/// Renders a ``CorpusSummary`` as aligned plain text: one line per track, then one table per
/// group of tracks.
public enum CorpusSummaryTable {
    /// The column headings of a group's table.
    public static let headings = [
        "policy", "reports", "total vs optimum", "median vs optimum", "worst vs optimum",
        "better/worse than DR", "bound broken", "worst track",
    ]

    /// The whole text.
    public static func render(_ summary: CorpusSummary) -> String {
        var lines: [String] = []
        if let first = summary.rows.first {
            let header = ["track", "mode", "half", "fixes"] + first.policies.map { "\($0.policy) (vs opt)" }
            let rows = summary.rows.map { row in
                [row.name, row.mode, row.half, String(row.fixes)] + row.policies.map { cell in
                    "\(cell.reports) (\(EvaluationTable.ratio(cell.ratioToOptimum)))" + (cell.boundHeld == false ? " !" : "")
                }
            }
            lines += EvaluationTable.align([header] + rows)
        }
        for group in summary.groups {
            lines.append("")
            lines.append("\(group.name): \(group.tracks) tracks, \(group.fixes) accepted fixes")
            let rows = group.policies.map { t in
                [
                    t.policy, String(t.reports), EvaluationTable.ratio(t.totalRatio), EvaluationTable.ratio(t.medianRatio),
                    EvaluationTable.ratio(t.worstRatio),
                    t.betterThanDeadReckoning.map { "\($0) / \(t.worseThanDeadReckoning ?? 0)" } ?? "-",
                    t.boundBroken.map(String.init) ?? "-", t.worstTrack ?? "-",
                ]
            }
            lines += EvaluationTable.align([headings] + rows).map { "  " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
