import EvalKit
import Foundation
import Testing

/// The manifest reader and the leave-one-dataset-out choice, on small hand-made corpora whose
/// right answers can be worked out by hand.
struct LeaveOneDatasetOutTests {
    @Test("The manifest's table rows give each file its dataset (the repository before ' @ ') and mode; prose and headings are skipped")
    func manifest() {
        let text = """
        # Real GPS track corpus - MANIFEST

        126 GPX 1.1 files | not a row

        | file | source repo @ commit : path | licence | mode | fixes |
        |---|---|---|---|---:|
        | gpsd-car-bu353s4.gpx | ntpsec/gpsd @ e9d90ba252fb : test/daemon/bu353s4.log | BSD-2-Clause | car | 771 |
        | igc-plane-a.gpx | marcin-osowski/igc_lib @ 1234 : testfiles/a.igc | MIT | Plane | 900 |
        """
        let manifest = CorpusManifest(text: text)
        #expect(manifest.entries.count == 2)
        #expect(manifest["gpsd-car-bu353s4.gpx"] == CorpusManifest.Entry(dataset: "ntpsec/gpsd", mode: "car"))
        #expect(manifest["igc-plane-a.gpx"] == CorpusManifest.Entry(dataset: "marcin-osowski/igc_lib", mode: "plane"))
        #expect(manifest["file"] == nil)
    }

    static func row(_ name: String, _ dataset: String, _ mode: String, _ reports: [Int], broken: Bool = false) -> CorpusSummary.Row {
        let names = ["dead-reckoning(50m)", "bounded(50m)", "bounded-without-braking(50m)"]
        return CorpusSummary.Row(
            name: name, mode: mode, half: "A", dataset: dataset, fixes: 100,
            policies: zip(names, reports).map { name, count in
                CorpusSummary.Cell(policy: name, reports: count, ratioToOptimum: nil, boundHeld: name.hasPrefix("bounded") ? !broken : nil)
            }
        )
    }

    @Test("Each dataset gets the candidate with the fewest reports on the other datasets, measured on itself")
    func choice() throws {
        // The rule (bounded against the variant without it) saves 10 on datasets a and b but
        // costs 30 on c: a and b are judged by the others (b + c, a + c: the rule loses 20 there),
        // so both go without it; c is judged by a + b (the rule saves 20) and uses it.
        let rows = [
            Self.row("a1.gpx", "a", "walk", [100, 90, 100]),
            Self.row("b1.gpx", "b", "walk", [100, 90, 100]),
            Self.row("c1.gpx", "c", "plane", [100, 130, 100]),
        ]
        let results = LeaveOneDatasetOut.evaluate(rows)
        let result = try #require(results.first)
        #expect(results.count == 1)
        #expect(result.epsilon == "50m")
        #expect(result.candidates == ["bounded(50m)", "bounded-without-braking(50m)"])
        #expect(result.choices.map(\.dataset) == ["a", "b", "c"])
        #expect(result.choices.map(\.chosen) == ["bounded-without-braking(50m)", "bounded-without-braking(50m)", "bounded(50m)"])
        #expect(result.choices.map(\.reports) == [100, 100, 130])
        #expect(result.totals.map(\.group) == ["all", "plane", "walk"])
        #expect(result.totals.map(\.chosen) == [330, 130, 200])
        #expect(result.totals.map(\.deadReckoning) == [300, 100, 200])
        #expect(result.totals.map(\.candidates) == [[310, 300], [130, 100], [180, 200]])
        // Left out, the rule is chosen only for c, where it costs 30: it does not pay off, even
        // though it is on balance neutral when always on (310 - 300 = +10 over all).
        let effect = try #require(result.ruleEffects.first)
        #expect(effect.variant == "bounded-without-braking(50m)")
        #expect(effect.leftOutEffect == [30, 30, 0])
        #expect(effect.alwaysEffect == [10, 30, -20])
        #expect(effect.keptFor == ["c"])
    }

    @Test("A variant replaces the policy as documented only when it needs fewer reports on the other datasets by more than √n")
    func margin() throws {
        // Judged on two datasets of 100 reports each (n = 200, √n ≈ 14.1): saving 10 on each (20)
        // is more than chance, saving 5 on each (10) is not.
        let beyond = [Self.row("a1.gpx", "a", "car", [100, 100, 90]), Self.row("b1.gpx", "b", "car", [100, 100, 90]), Self.row("c1.gpx", "c", "car", [100, 100, 90])]
        let within = [Self.row("a1.gpx", "a", "car", [100, 100, 95]), Self.row("b1.gpx", "b", "car", [100, 100, 95]), Self.row("c1.gpx", "c", "car", [100, 100, 95])]
        let chosen = try #require(LeaveOneDatasetOut.evaluate(beyond).first)
        #expect(chosen.choices.map(\.chosen) == Array(repeating: "bounded-without-braking(50m)", count: 3))
        #expect(chosen.totals.first?.chosen == 270)
        #expect(chosen.ruleEffects.first?.keptFor == [])
        let kept = try #require(LeaveOneDatasetOut.evaluate(within).first)
        #expect(kept.choices.map(\.chosen) == Array(repeating: "bounded(50m)", count: 3))
        #expect(kept.totals.first?.chosen == 300)
        #expect(kept.ruleEffects.first?.leftOutEffect == [15, 15])
        #expect(kept.ruleEffects.first?.keptFor == ["a", "b", "c"])
    }

    @Test("A broken bound is counted for the chosen candidate; one dataset alone gives no result")
    func brokenAndSingle() throws {
        let rows = [
            Self.row("a1.gpx", "a", "car", [10, 5, 8], broken: true),
            Self.row("b1.gpx", "b", "car", [10, 5, 8]),
        ]
        let result = try #require(LeaveOneDatasetOut.evaluate(rows).first)
        #expect(result.choices.map(\.chosen) == ["bounded(50m)", "bounded(50m)"])
        #expect(result.totals.first?.boundBroken == 1)
        #expect(LeaveOneDatasetOut.evaluate([rows[0]]).isEmpty)
    }

    @Test("Grouped by dataset: all, then one group per dataset")
    func groupByDataset() {
        let rows = [Self.row("a1.gpx", "a", "car", [10, 5, 8]), Self.row("b1.gpx", "b", "walk", [10, 5, 8]), Self.row("a2.gpx", "a", "walk", [1, 1, 1])]
        #expect(CorpusSummary(rows: rows, groupBy: .dataset).groups.map(\.name) == ["all", "dataset a", "dataset b"])
        #expect(CorpusSummary(rows: rows, groupBy: .dataset).groups.map(\.tracks) == [3, 2, 1])
        #expect(CorpusSummary(rows: rows, groupBy: .mode).groups.map(\.name) == ["all", "mode car", "mode walk"])
    }
}
