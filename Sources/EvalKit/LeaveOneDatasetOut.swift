import Foundation

/// Leave-one-dataset-out at one epsilon: every `bounded` variant that ran (the policy as
/// documented and each `--without` / `--ablate` variant) is a candidate; for each dataset, the
/// candidate with the fewest reports on all the *other* datasets is chosen and measured on the one
/// left out. Summed over the rotation, that is what choosing among the candidates is worth on data
/// the choice never saw, per mode. A random split does not guard against fitting a corpus whose
/// tracks of one dataset share a device, a smoothing and a sampling rate; this does.
///
/// For each variant without a rule, the same is done for the pair (the policy with the rule, the
/// variant without it): the rule's *left-out effect* is the reports of that pairwise choice minus
/// those of never using the rule. Negative: the rule pays off on datasets it was not chosen on.
package struct LeaveOneDatasetOut: Sendable, Codable {
    /// What was chosen for one left-out dataset.
    package struct Choice: Sendable, Codable {
        /// The dataset left out.
        package var dataset: String
        /// Its tracks.
        package var tracks: Int
        /// The candidate chosen on the other datasets.
        package var chosen: String
        /// The chosen candidate's reports on the dataset left out.
        package var reports: Int
        /// Dead reckoning's reports there at the same epsilon, when it ran.
        package var deadReckoning: Int?
    }

    /// One group of tracks (all, or one mode) measured on left-out data.
    package struct Totals: Sendable, Codable {
        /// `all` or the mode.
        package var group: String
        /// Tracks in the group.
        package var tracks: Int
        /// Dead reckoning's reports, when it ran.
        package var deadReckoning: Int?
        /// The reports of the candidate chosen for each track's dataset without it.
        package var chosen: Int
        /// Tracks where the chosen candidate broke its bound.
        package var boundBroken: Int
        /// Each candidate's own reports over the group (in the order of ``LeaveOneDatasetOut/candidates``).
        package var candidates: [Int]
    }

    /// One rule's effect on left-out data: a variant without it against the policy with it.
    package struct RuleEffect: Sendable, Codable {
        /// The variant without the rule, such as `bounded-without-braking(50m)`.
        package var variant: String
        /// Per group (as ``LeaveOneDatasetOut/totals``): the reports when each left-out dataset
        /// uses the rule only if it saved reports on the other datasets, minus the variant's.
        package var leftOutEffect: [Int]
        /// Per group: the policy's reports minus the variant's (the rule always on).
        package var alwaysEffect: [Int]
        /// The datasets for which the other datasets chose the rule.
        package var keptFor: [String]
    }

    /// How many reports fewer than the policy as documented a variant must need on the other
    /// datasets to be chosen instead: one standard deviation of a count of `n` reports, `√n`
    /// (the margin `bounded`'s `turn-lead` rule uses). A variant that differs by less differs by
    /// chance, and choosing it fits the other datasets' noise.
    static func margin(_ reports: Double) -> Double { reports.squareRoot() }

    /// The epsilon, as the policies' names carry it (`50m`).
    package var epsilon: String
    /// The candidates, the policy as documented first.
    package var candidates: [String]
    /// One choice per dataset, alphabetical.
    package var choices: [Choice]
    /// All tracks, then each mode (alphabetical).
    package var totals: [Totals]
    /// One per variant after the first candidate.
    package var ruleEffects: [RuleEffect]

    /// The leave-one-dataset-out result of every epsilon in `rows`; tracks without a dataset are
    /// left out. Empty when no `bounded` policy ran or fewer than two datasets are named.
    package static func evaluate(_ rows: [CorpusSummary.Row]) -> [LeaveOneDatasetOut] {
        let rows = rows.filter { $0.dataset != nil }
        guard let first = rows.first, Set(rows.map { $0.dataset ?? "" }).count >= 2 else { return [] }
        let names = first.policies.map(\.policy)
        var suffixes: [String] = []
        for name in names where name.hasPrefix("bounded") {
            let suffix = epsilonSuffix(name)
            if !suffixes.contains(suffix) { suffixes.append(suffix) }
        }
        return suffixes.map { suffix in
            let columns = names.indices.filter { names[$0].hasPrefix("bounded") && epsilonSuffix(names[$0]) == suffix }
            let baseline = names.firstIndex(of: "dead-reckoning" + suffix)
            return evaluate(rows, columns: columns, names: names, baseline: baseline, suffix: suffix)
        }
    }

    /// The `(50m)` at the end of a policy name.
    static func epsilonSuffix(_ name: String) -> String {
        guard let open = name.lastIndex(of: "(") else { return "" }
        return String(name[open...])
    }

    private static func evaluate(_ rows: [CorpusSummary.Row], columns: [Int], names: [String], baseline: Int?, suffix: String) -> LeaveOneDatasetOut {
        let datasets = Set(rows.map { $0.dataset ?? "" }).sorted()
        // Reports per dataset and column.
        var sums: [String: [Int]] = [:]
        for row in rows {
            var sum = sums[row.dataset ?? "", default: Array(repeating: 0, count: columns.count)]
            for (slot, column) in columns.enumerated() { sum[slot] += row.policies[column].reports }
            sums[row.dataset ?? ""] = sum
        }
        let total = columns.indices.map { slot in sums.values.reduce(0) { $0 + $1[slot] } }
        /// The slot among `slots` with the fewest reports outside `dataset` (the first on a tie);
        /// another slot replaces the first (the policy as documented) only when it needs fewer
        /// reports than the first by more than chance, `√n` for the first's `n` (``margin``).
        func choose(_ slots: [Int], without dataset: String) -> Int {
            let own = sums[dataset] ?? []
            let best = slots.min { total[$0] - own[$0] < total[$1] - own[$1] } ?? slots[0]
            let first = Double(total[slots[0]] - own[slots[0]]), chosen = Double(total[best] - own[best])
            return chosen + margin(first) < first ? best : slots[0]
        }
        let chosen = Dictionary(uniqueKeysWithValues: datasets.map { ($0, choose(Array(columns.indices), without: $0)) })
        let choices = datasets.map { dataset in
            let slot = chosen[dataset] ?? 0
            let members = rows.filter { $0.dataset == dataset }
            return Choice(
                dataset: dataset, tracks: members.count, chosen: names[columns[slot]],
                reports: sums[dataset]?[slot] ?? 0,
                deadReckoning: baseline.map { column in members.reduce(0) { $0 + $1.policies[column].reports } }
            )
        }
        let groups = [("all", rows)] + Set(rows.map(\.mode)).sorted().map { mode in (mode, rows.filter { $0.mode == mode }) }
        let totals = groups.map { name, members in
            Totals(
                group: name, tracks: members.count,
                deadReckoning: baseline.map { column in members.reduce(0) { $0 + $1.policies[column].reports } },
                chosen: members.reduce(0) { $0 + $1.policies[columns[chosen[$1.dataset ?? ""] ?? 0]].reports },
                boundBroken: members.filter { member in
                    let cell = member.policies[columns[chosen[member.dataset ?? ""] ?? 0]]
                    return cell.boundHeld == false
                }.count,
                candidates: columns.map { column in members.reduce(0) { $0 + $1.policies[column].reports } }
            )
        }
        let effects = columns.indices.dropFirst().map { slot in
            let pick = Dictionary(uniqueKeysWithValues: datasets.map { ($0, choose([0, slot], without: $0)) })
            func sum(_ members: [CorpusSummary.Row], _ column: (CorpusSummary.Row) -> Int) -> Int {
                members.reduce(0) { $0 + $1.policies[column($1)].reports }
            }
            return RuleEffect(
                variant: names[columns[slot]],
                leftOutEffect: groups.map { _, members in
                    sum(members) { columns[pick[$0.dataset ?? ""] ?? 0] } - sum(members) { _ in columns[slot] }
                },
                alwaysEffect: groups.map { _, members in sum(members) { _ in columns[0] } - sum(members) { _ in columns[slot] } },
                keptFor: datasets.filter { pick[$0] == 0 }
            )
        }
        return LeaveOneDatasetOut(
            epsilon: String(suffix.dropFirst().dropLast()), candidates: columns.map { names[$0] },
            choices: choices, totals: totals, ruleEffects: effects
        )
    }
}
