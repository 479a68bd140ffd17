import Foundation
import Testing

/// Runs the real `whereabouts-eval` executable on fixtures (and on the shared traces when present).
@Suite(.enabled(if: EvalBinary.executable != nil, "whereabouts-eval is not built"))
struct WhereaboutsEvalCLITests {
    static let track = EvalBinary.fixture("short-drive.gpx").path

    @Test("--help prints the whole documented help text")
    func help() async throws {
        let output = try await EvalBinary.run(["--help"])
        let expected = try String(contentsOf: EvalBinary.fixture("help.txt"), encoding: .utf8)
        #expect(output.status == 0)
        #expect(output.stdout == expected)
    }

    @Test("The table has a row per policy and the rejection line")
    func table() async throws {
        let output = try await EvalBinary.run([Self.track])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "short-drive.gpx: 300 fixes read, 300 accepted over 0.08 h")
        #expect(lines.contains("  rejected: none"))
        for name in ["seed", "interval(10s)", "distance(50m)", "significant", "dead-reckoning(50m)", "bounded(50m)"] {
            #expect(lines.contains { $0.hasPrefix("  \(name) ") }, "no row for \(name)")
        }
    }

    @Test("--format json parses and carries the same measures; bounded keeps its bound at each --epsilon")
    func json() async throws {
        let output = try await EvalBinary.run([Self.track, "--format", "json", "--policy", "bounded,seed", "--epsilon", "25,50,100"])
        #expect(output.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let tracks = try #require(object["tracks"] as? [[String: Any]])
        let policies = try #require(tracks.first?["policies"] as? [[String: Any]])
        #expect(policies.map { $0["policy"] as? String } == ["bounded(25m)", "bounded(50m)", "bounded(100m)", "seed"])
        for (policy, epsilon) in zip(policies, [25.0, 50, 100]) {
            let predict = try #require(policy["predictError"] as? [String: Any])
            #expect(try #require(predict["max"] as? Double) <= epsilon)
            #expect(try #require(policy["reports"] as? Int) > 0)
        }
        #expect(tracks.first?["accepted"] as? Int == 300)
    }

    @Test("--reports writes policy,index,time,lat,lon,trigger,ve,vn,ms,tr and why for every report")
    func reportsCSV() async throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("reports.csv")
        let output = try await EvalBinary.run([Self.track, "--policy", "seed,bounded", "--reports", csv.path, "--format", "json"])
        #expect(output.status == 0)
        let rows = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first == ["policy", "index", "time", "lat", "lon", "trigger", "ve", "vn", "ms", "tr",
                               "speed", "course", "estimator", "rules", "shadows"])
        let body = rows.dropFirst()
        #expect(body.allSatisfy { $0.count == 15 })
        // Why each report went out: bounded names the estimator that led, the rules that shaped
        // the report and every shadow's count; other policies leave those empty.
        let estimators = ["measured", "window8", "hold", "turning"]
        let rules = ["turn", "braking", "lag", "parked", "own-fix"]
        for row in body where row[0] == "bounded(50m)" {
            #expect(estimators.contains(row[12]))
            #expect(row[13].split(separator: "+").allSatisfy { rules.contains(String($0)) })
            #expect(row[14].split(separator: "+").map { $0.split(separator: "=").first.map(String.init) ?? "" } == estimators)
        }
        // A moving bounded report is sent from a tenth of epsilon behind the fix: the lag rule.
        #expect(body.contains { $0[0] == "bounded(50m)" && $0[6] != "0.00" && $0[13].contains("lag") })
        #expect(body.filter { $0[0] == "seed" }.allSatisfy { $0[12].isEmpty && $0[13].isEmpty && $0[14].isEmpty })
        // A message with a velocity carries its horizon; a held one carries none.
        #expect(body.allSatisfy { ($0[6] == "0.00" && $0[7] == "0.00") == $0[8].isEmpty })
        #expect(body.filter { !$0[8].isEmpty }.allSatisfy { Int($0[8]).map { (1...120).contains($0) } ?? false })
        #expect(body.allSatisfy { Int($0[1]).map { (0..<300).contains($0) } ?? false })
        #expect(body.allSatisfy { ["f", "t", "T", "k", "v", "r"].contains($0[5]) })
        #expect(body.filter { $0[5] == "f" }.map { $0[0] } == ["seed", "bounded(50m)"])
        // Seed never sends a velocity; bounded does while the car moves.
        #expect(body.filter { $0[0] == "seed" }.allSatisfy { $0[6] == "0.00" && $0[7] == "0.00" })
        #expect(body.contains { $0[0] == "bounded(50m)" && $0[6] != "0.00" })
        // The JSON report count matches the CSV rows.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let policies = try #require((object["tracks"] as? [[String: Any]])?.first?["policies"] as? [[String: Any]])
        #expect(policies.compactMap { $0["reports"] as? Int }.reduce(0, +) == body.count)
    }

    @Test("--policy optimum prints the optimum's row; every row has its ratio to it")
    func optimum() async throws {
        let output = try await EvalBinary.run([Self.track, "--policy", "dead-reckoning,optimum", "--format", "json"])
        #expect(output.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let policies = try #require((object["tracks"] as? [[String: Any]])?.first?["policies"] as? [[String: Any]])
        #expect(policies.map { $0["policy"] as? String } == ["dead-reckoning(50m)", "optimum(50m)"])
        let plain = try #require(policies[0]["reports"] as? Int), best = try #require(policies[1]["reports"] as? Int)
        #expect(best <= plain)
        #expect(policies[1]["ratioToOptimum"] as? Double == 1)
        #expect(try #require(policies[0]["ratioToOptimum"] as? Double) == Double(plain) / Double(best))
        let predict = try #require(policies[1]["predictError"] as? [String: Any])
        #expect(try #require(predict["max"] as? Double) <= 50)
    }

    @Test("--summary over a folder and a quoted glob: a row per track, groups by half and mode")
    func summary() async throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["x-car-one.gpx", "y-walk-two.gpx"] {
            try FileManager.default.copyItem(at: EvalBinary.fixture("short-drive.gpx"), to: directory.appendingPathComponent(name))
        }
        try "not a track".write(to: directory.appendingPathComponent("MANIFEST.md"), atomically: true, encoding: .utf8)
        for argument in [directory.path, directory.path + "/*.gpx"] {
            let output = try await EvalBinary.run(["--summary", "--format", "json", argument])
            #expect(output.status == 0, "\(output.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            let rows = try #require(object["rows"] as? [[String: Any]])
            #expect(rows.map { $0["name"] as? String } == ["x-car-one.gpx", "y-walk-two.gpx"])
            #expect(rows.map { $0["mode"] as? String } == ["car", "walk"])
            let groups = try #require(object["groups"] as? [[String: Any]])
            #expect(groups.map { $0["name"] as? String } == ["all", "half A", "half B", "mode car", "mode walk"])
            let all = try #require(groups.first?["policies"] as? [[String: Any]])
            #expect(all.map { $0["policy"] as? String } == ["dead-reckoning(50m)", "bounded(50m)", "optimum(50m)"])
            for policy in all {
                #expect(try #require(policy["worstRatio"] as? Double) >= 1)
                #expect(policy["boundBroken"] as? Int == 0)
            }
            #expect(all[2]["totalRatio"] as? Double == 1)
            // The comparison's measures: reports per hour, bytes, wake-ups, the pooled live error.
            for policy in all.prefix(2) {
                #expect(try #require(policy["reportsPerHour"] as? Double) > 0)
                #expect(try #require(policy["bytes"] as? Int) > 0)
                #expect(try #require(policy["wakeUps"] as? Int) > 0)
                let median = try #require(policy["errorMedian"] as? Double), p95 = try #require(policy["errorP95"] as? Double)
                #expect(median <= p95)
                #expect(p95 <= (policy["errorMax"] as? Double ?? 0))
                #expect(try #require(policy["errorMax"] as? Double) <= 50)
            }
        }
        // The table form names the groups too.
        let table = try await EvalBinary.run(["--summary", directory.path])
        #expect(table.stdout.contains("all: 2 tracks"))
        #expect(table.stdout.contains("mode walk: 1 tracks"))
        // --summary with --reports is a usage error.
        #expect(try await EvalBinary.run(["--summary", "--reports", "x.csv", directory.path]).status == 2)
    }

    @Test("--group-by dataset and --leave-one-dataset-out read the folder's MANIFEST.md; --ablate adds a variant per rule")
    func leaveOneDatasetOut() async throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = [("p-car-one.gpx", "owner/p", "car"), ("q-car-two.gpx", "owner/q", "car"), ("r-walk-three.gpx", "owner/r", "walk")]
        var manifest = "# MANIFEST\n\n| file | source repo @ commit : path | licence | mode | fixes |\n|---|---|---|---|---:|\n"
        for (name, dataset, mode) in files {
            try FileManager.default.copyItem(at: EvalBinary.fixture("short-drive.gpx"), to: directory.appendingPathComponent(name))
            manifest += "| \(name) | \(dataset) @ 0123abcd : x.gpx | MIT | \(mode) | 300 |\n"
        }
        try manifest.write(to: directory.appendingPathComponent("MANIFEST.md"), atomically: true, encoding: .utf8)
        let output = try await EvalBinary.run([
            "--summary", "--format", "json", "--group-by", "dataset", "--leave-one-dataset-out", "--ablate",
            "--policy", "dead-reckoning,bounded", directory.path,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["dataset"] as? String } == ["owner/p", "owner/q", "owner/r"])
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["all", "dataset owner/p", "dataset owner/q", "dataset owner/r"])
        let results = try #require(object["leaveOneDatasetOut"] as? [[String: Any]])
        let result = try #require(results.first)
        let candidates = try #require(result["candidates"] as? [String])
        #expect(candidates.first == "bounded(50m)")
        #expect(candidates.count == 1 + 10)
        #expect(candidates.contains("bounded-without-braking(50m)"))
        let choices = try #require(result["choices"] as? [[String: Any]])
        #expect(choices.map { $0["dataset"] as? String } == ["owner/p", "owner/q", "owner/r"])
        // Three copies of one track: the others (two copies) always choose the same candidate,
        // the one with the fewest reports when it saves more than √n, else the policy as documented.
        let chosen = Set(choices.compactMap { $0["chosen"] as? String })
        #expect(chosen.count == 1)
        let totals = try #require(result["totals"] as? [[String: Any]])
        #expect(totals.map { $0["group"] as? String } == ["all", "car", "walk"])
        #expect(totals.map { $0["boundBroken"] as? Int } == [0, 0, 0])
        let all = try #require(totals.first)
        let counts = try #require(all["candidates"] as? [Int])
        let documented = try #require(counts.first), fewest = try #require(counts.min())
        let others = { (count: Int) in Double(count * 2) / 3 }
        #expect(all["chosen"] as? Int == (others(fewest) + others(documented).squareRoot() < others(documented) ? fewest : documented))
        #expect((result["ruleEffects"] as? [[String: Any]])?.count == 10)
        // The table form prints the left-out tables.
        let table = try await EvalBinary.run(["--summary", "--leave-one-dataset-out", "--policy", "dead-reckoning,bounded", directory.path])
        #expect(table.stdout.contains("leave one dataset out, 50m"))
        #expect(table.stdout.contains("left-out reports per group"))
        // A track the manifest does not list, or no manifest at all, is a usage error naming it.
        try FileManager.default.copyItem(at: EvalBinary.fixture("short-drive.gpx"), to: directory.appendingPathComponent("s-car-four.gpx"))
        let unlisted = try await EvalBinary.run(["--summary", "--group-by", "dataset", directory.path])
        #expect(unlisted.status == 2)
        #expect(unlisted.stderr.contains("s-car-four.gpx"))
        #expect(try await EvalBinary.run(["--summary", "--leave-one-dataset-out", Self.track]).status == 2)
        #expect(try await EvalBinary.run(["--group-by", "mode", Self.track]).status == 2)
    }

    @Test("--plot draws an SVG of the chosen policy")
    func plot() async throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("plot.svg")
        let output = try await EvalBinary.run([Self.track, "--plot", svg.path, "--plot-policy", "bounded"])
        #expect(output.status == 0)
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.hasPrefix("<svg"))
        #expect(text.contains("bounded(50m)"))
        #expect(text.contains("<circle"))
        #expect(text.contains("stroke-dasharray"))  // the 50 m bound
    }

    @Test("Bad flags are usage errors that name the flag", arguments: [
        (["--policy", "fastest"], "There is no policy named 'fastest'"),
        (["--epsilon", "25,abc"], "--epsilon"),
        (["--max-silence", "0"], "--max-silence"),
    ])
    func badFlags(_ flags: [String], _ message: String) async throws {
        let output = try await EvalBinary.run([Self.track] + flags)
        #expect(output.status == 2, "a bad command line exits with status 2")
        #expect(output.stderr.contains(message))
    }

    @Test("A file that is neither GPX nor NMEA is refused with a clear message")
    func unknownFormat() async throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.dat")
        try "hello".write(to: file, atomically: true, encoding: .utf8)
        let output = try await EvalBinary.run([file.path])
        #expect(output.status != 0)
        #expect(output.stderr.contains("Cannot tell whether"))
    }
}
