import Foundation
import Testing

/// Runs the real `whereabouts-eval` executable on fixtures (and on the shared traces when present).
@Suite(.enabled(if: EvalBinary.executable != nil, "whereabouts-eval is not built"))
struct WhereaboutsEvalCLITests {
    static let track = EvalBinary.fixture("short-drive.gpx").path

    @Test("--help prints the whole documented help text")
    func help() throws {
        let output = try EvalBinary.run(["--help"])
        let expected = try String(contentsOf: EvalBinary.fixture("help.txt"), encoding: .utf8)
        #expect(output.status == 0)
        #expect(output.stdout == expected)
    }

    @Test("The table has a row per policy and the rejection line")
    func table() throws {
        let output = try EvalBinary.run([Self.track])
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
    func json() throws {
        let output = try EvalBinary.run([Self.track, "--format", "json", "--policy", "bounded,seed", "--epsilon", "25,50,100"])
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

    @Test("--reports writes policy,index,time,lat,lon,trigger,ve,vn for every report")
    func reportsCSV() throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("reports.csv")
        let output = try EvalBinary.run([Self.track, "--policy", "seed,bounded", "--reports", csv.path, "--format", "json"])
        #expect(output.status == 0)
        let rows = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.first == ["policy", "index", "time", "lat", "lon", "trigger", "ve", "vn"])
        let body = rows.dropFirst()
        #expect(body.allSatisfy { $0.count == 8 })
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

    @Test("--plot draws an SVG of the chosen policy")
    func plot() throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("plot.svg")
        let output = try EvalBinary.run([Self.track, "--plot", svg.path, "--plot-policy", "bounded"])
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
    func badFlags(_ flags: [String], _ message: String) throws {
        let output = try EvalBinary.run([Self.track] + flags)
        #expect(output.status == 2, "a bad command line exits with status 2")
        #expect(output.stderr.contains(message))
    }

    @Test("A file that is neither GPX nor NMEA is refused with a clear message")
    func unknownFormat() throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.dat")
        try "hello".write(to: file, atomically: true, encoding: .utf8)
        let output = try EvalBinary.run([file.path])
        #expect(output.status != 0)
        #expect(output.stderr.contains("Cannot tell whether"))
    }
}
