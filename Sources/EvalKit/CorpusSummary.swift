import Foundation
import WhereaboutsCore

/// Corpus mode (`--summary`): one row per track and, per group of tracks (all, each half of the
/// split, each mode), each policy's totals, its median and worst ratio to the offline optimum,
/// and how often it beat the dead-reckoning baseline at the same epsilon.
package struct CorpusSummary: Sendable, Codable {
    /// One track's numbers.
    package struct Row: Sendable, Codable {
        /// The track's file name.
        package var name: String
        /// Its mode of travel (``CorpusSplit/mode(of:)``).
        package var mode: String
        /// Its half of the split (``CorpusSplit/half(of:)``).
        package var half: String
        /// The dataset it comes from, when a manifest names it (``CorpusManifest``).
        package var dataset: String?
        /// Accepted fixes.
        package var fixes: Int
        /// Hours from the first to the last accepted fix.
        package var hours: Double = 0
        /// One entry per policy, in order.
        package var policies: [Cell]

        /// A row from its values.
        package init(name: String, mode: String, half: String, dataset: String? = nil, fixes: Int, hours: Double = 0, policies: [Cell]) {
            self.name = name
            self.mode = mode
            self.half = half
            self.dataset = dataset
            self.fixes = fixes
            self.hours = hours
            self.policies = policies
        }
    }

    /// One policy on one track.
    package struct Cell: Sendable, Codable {
        /// The policy's name, such as `bounded(50m)`.
        package var policy: String
        /// Reports it made.
        package var reports: Int
        /// Reports divided by the optimum's at the same epsilon.
        package var ratioToOptimum: Double?
        /// Whether the live error under `predict` stayed within the policy's bound at every fix
        /// (`nil` for policies without a bound).
        package var boundHeld: Bool?
        /// Bytes on the wire (``PolicyEvaluation/bytes``).
        package var bytes: Int = 0
        /// Radio wake-ups (``PolicyEvaluation/wakeUps``).
        package var wakeUps: Int = 0
        /// The dashboard's live error (`predict`) at every accepted fix, binned; not in the JSON.
        package var errors = ErrorHistogram()

        enum CodingKeys: String, CodingKey {
            case policy, reports, ratioToOptimum, boundHeld, bytes, wakeUps
        }

        /// A cell from its values.
        package init(policy: String, reports: Int, ratioToOptimum: Double?, boundHeld: Bool?,
                    bytes: Int = 0, wakeUps: Int = 0, errors: ErrorHistogram = ErrorHistogram()) {
            self.policy = policy
            self.reports = reports
            self.ratioToOptimum = ratioToOptimum
            self.boundHeld = boundHeld
            self.bytes = bytes
            self.wakeUps = wakeUps
            self.errors = errors
        }
    }

    /// One policy's numbers over a group of tracks.
    package struct Totals: Sendable, Codable {
        /// The policy's name.
        package var policy: String
        /// Reports over the group.
        package var reports: Int
        /// Total reports divided by the optimum's total at the same epsilon.
        package var totalRatio: Double?
        /// The median of the per-track ratios to the optimum (the mean of the middle two for an
        /// even count).
        package var medianRatio: Double?
        /// The largest per-track ratio to the optimum.
        package var worstRatio: Double?
        /// The track with the largest ratio.
        package var worstTrack: String?
        /// Tracks with fewer / more reports than dead reckoning at the same epsilon (`nil` for
        /// dead reckoning itself or when it did not run).
        package var betterThanDeadReckoning: Int?
        /// See ``betterThanDeadReckoning``.
        package var worseThanDeadReckoning: Int?
        /// Tracks where the bound was not held (`nil` for policies without a bound).
        package var boundBroken: Int?
        /// Reports per hour of track time over the group.
        package var reportsPerHour: Double = 0
        /// Bytes on the wire over the group.
        package var bytes: Int = 0
        /// Radio wake-ups over the group.
        package var wakeUps: Int = 0
        /// The dashboard's live error (`predict`) over every fix of the group: median, 95th
        /// percentile (to the metre above) and largest, in metres.
        package var errorMedian: Double = 0
        /// See ``errorMedian``.
        package var errorP95: Double = 0
        /// See ``errorMedian``.
        package var errorMax: Double = 0
    }

    /// A group of tracks and its policies' totals.
    package struct Group: Sendable, Codable {
        /// `all`, `half A`, `half B`, `mode <name>` or `dataset <name>`.
        package var name: String
        /// Tracks in the group.
        package var tracks: Int
        /// Accepted fixes in the group.
        package var fixes: Int
        /// One entry per policy, in order.
        package var policies: [Totals]
    }

    /// Every track, in the order evaluated.
    package var rows: [Row]
    /// All tracks, then each half and each mode (alphabetical), or each group of ``GroupBy``.
    package var groups: [Group]
    /// The leave-one-dataset-out results, one per epsilon, when asked for.
    package var leaveOneDatasetOut: [LeaveOneDatasetOut]?

    /// How tracks are grouped after `all`.
    package enum GroupBy: String, Sendable, CaseIterable {
        /// By the dataset the manifest names.
        case dataset
        /// By mode of travel.
        case mode
    }

    /// Summarises rows already collected: all tracks, then each half and each mode, or with
    /// `groupBy` each dataset or each mode.
    package init(rows: [Row], groupBy: GroupBy? = nil) {
        self.rows = rows
        var groups = [Self.group("all", rows)]
        switch groupBy {
        case nil:
            for half in ["A", "B"] { groups.append(Self.group("half \(half)", rows.filter { $0.half == half })) }
            for mode in Set(rows.map(\.mode)).sorted() { groups.append(Self.group("mode \(mode)", rows.filter { $0.mode == mode })) }
        case .mode:
            for mode in Set(rows.map(\.mode)).sorted() { groups.append(Self.group("mode \(mode)", rows.filter { $0.mode == mode })) }
        case .dataset:
            for dataset in Set(rows.map { $0.dataset ?? "unlisted" }).sorted() {
                groups.append(Self.group("dataset \(dataset)", rows.filter { ($0.dataset ?? "unlisted") == dataset }))
            }
        }
        self.groups = groups
    }

    /// The summary row of one evaluated track; its mode and dataset come from `entry` when given,
    /// else the mode from the file name.
    package static func row(_ evaluation: TrackEvaluation, entry: CorpusManifest.Entry? = nil) -> Row {
        Row(
            name: evaluation.name, mode: entry?.mode ?? CorpusSplit.mode(of: evaluation.name), half: CorpusSplit.half(of: evaluation.name),
            dataset: entry?.dataset,
            fixes: evaluation.track.count, hours: evaluation.duration / 3600,
            policies: evaluation.runs.map { run in
                let e = run.evaluation
                return Cell(
                    policy: e.policy, reports: e.reports, ratioToOptimum: e.ratioToOptimum,
                    boundHeld: e.errorBound.map { e.predictError.max <= $0 + 1e-9 },
                    bytes: e.bytes, wakeUps: e.wakeUps, errors: ErrorHistogram(run.predictErrors)
                )
            }
        )
    }

    static func group(_ name: String, _ rows: [Row]) -> Group {
        let names = rows.first?.policies.map(\.policy) ?? []
        var totals: [Totals] = []
        for (column, policy) in names.enumerated() {
            let cells = rows.map { $0.policies[column] }
            let reports = cells.reduce(0) { $0 + $1.reports }
            // Optimum total: reports / ratio per track, exact since ratio = reports / optimum.
            let optimum = cells.reduce(0.0) { sum, cell in
                sum + (cell.ratioToOptimum.map { $0 > 0 ? Double(cell.reports) / $0 : 0 } ?? 0)
            }
            let ratios = zip(rows, cells).compactMap { row, cell in cell.ratioToOptimum.map { (row.name, $0) } }
            let worst = ratios.max { $0.1 < $1.1 }
            var better: Int? = nil, worse: Int? = nil
            if let baseline = baselineColumn(for: policy, in: names) {
                better = rows.filter { $0.policies[column].reports < $0.policies[baseline].reports }.count
                worse = rows.filter { $0.policies[column].reports > $0.policies[baseline].reports }.count
            }
            let held = cells.compactMap(\.boundHeld)
            var errors = ErrorHistogram()
            for cell in cells { errors.merge(cell.errors) }
            let hours = rows.reduce(0) { $0 + $1.hours }
            totals.append(Totals(
                policy: policy, reports: reports,
                totalRatio: optimum > 0 ? Double(reports) / optimum.rounded() : nil,
                medianRatio: median(ratios.map(\.1)), worstRatio: worst?.1, worstTrack: worst?.0,
                betterThanDeadReckoning: better, worseThanDeadReckoning: worse,
                boundBroken: held.isEmpty ? nil : held.filter { !$0 }.count,
                reportsPerHour: hours > 0 ? Double(reports) / hours : 0,
                bytes: cells.reduce(0) { $0 + $1.bytes }, wakeUps: cells.reduce(0) { $0 + $1.wakeUps },
                errorMedian: errors.quantile(0.5), errorP95: errors.quantile(0.95), errorMax: errors.max
            ))
        }
        return Group(name: name, tracks: rows.count, fixes: rows.reduce(0) { $0 + $1.fixes }, policies: totals)
    }

    /// The column of dead reckoning at the same epsilon as `policy` (by its `(…m)` suffix).
    static func baselineColumn(for policy: String, in names: [String]) -> Int? {
        guard !policy.hasPrefix("dead-reckoning"), let open = policy.firstIndex(of: "(") else { return nil }
        return names.firstIndex(of: "dead-reckoning" + policy[open...])
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The pretty-printed JSON text, keys sorted.
    package func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
