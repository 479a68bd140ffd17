import Foundation

/// Renders a ``CorpusSummary`` as aligned plain text: one line per track, then one table per
/// group of tracks.
package enum CorpusSummaryTable {
    /// The column headings of a group's table.
    package static let headings = [
        "policy", "reports", "total vs optimum", "median vs optimum", "worst vs optimum",
        "better/worse than DR", "bound broken", "per hour", "bytes", "wake-ups", "error median/p95/max (m)", "worst track",
    ]

    /// The whole text.
    package static func render(_ summary: CorpusSummary) -> String {
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
                    t.boundBroken.map(String.init) ?? "-", String(format: "%.1f", t.reportsPerHour), String(t.bytes), String(t.wakeUps),
                    String(format: "%.0f / %.0f / %.0f", t.errorMedian, t.errorP95, t.errorMax), t.worstTrack ?? "-",
                ]
            }
            lines += EvaluationTable.align([headings] + rows).map { "  " + $0 }
        }
        for result in summary.leaveOneDatasetOut ?? [] { lines += render(result) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `reports (ratio to dead reckoning)`.
    static func versus(_ reports: Int, _ deadReckoning: Int?) -> String {
        guard let deadReckoning, deadReckoning > 0 else { return String(reports) }
        return "\(reports) (\(String(format: "%.3f", Double(reports) / Double(deadReckoning))))"
    }

    /// The leave-one-dataset-out tables of one epsilon.
    static func render(_ result: LeaveOneDatasetOut) -> [String] {
        var lines = ["", "leave one dataset out, \(result.epsilon): each dataset gets the candidate with the fewest reports on the others"]
        lines += EvaluationTable.align(
            [["left out", "tracks", "chosen on the others", "reports (vs DR)", "dead-reckoning"]]
                + result.choices.map { c in
                    [c.dataset, String(c.tracks), c.chosen, versus(c.reports, c.deadReckoning), c.deadReckoning.map(String.init) ?? "-"]
                }
        ).map { "  " + $0 }
        lines.append("")
        lines.append("  left-out reports per group (vs dead reckoning):")
        let groups = result.totals.map(\.group)
        var table = [["policy"] + groups]
        table.append(["dead-reckoning"] + result.totals.map { $0.deadReckoning.map(String.init) ?? "-" })
        table.append(["chosen per left-out dataset"] + result.totals.map { versus($0.chosen, $0.deadReckoning) })
        for (slot, name) in result.candidates.enumerated() {
            table.append([name] + result.totals.map { versus($0.candidates[slot], $0.deadReckoning) })
        }
        table.append(["bound broken (chosen)"] + result.totals.map { String($0.boundBroken) })
        lines += EvaluationTable.align(table).map { "    " + $0 }
        if !result.ruleEffects.isEmpty {
            lines.append("")
            lines.append("  each rule on left-out data: reports with the rule where the other datasets chose it, minus without it (negative: it pays off); [always on]")
            var effects = [["without"] + groups + ["kept for"]]
            for effect in result.ruleEffects {
                effects.append([effect.variant] + zip(effect.leftOutEffect, effect.alwaysEffect).map { "\($0) [\($1)]" }
                    + ["\(effect.keptFor.count) of \(result.choices.count)"])
            }
            lines += EvaluationTable.align(effects).map { "    " + $0 }
        }
        return lines
    }
}
