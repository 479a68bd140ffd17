import Foundation
import Logging
import PositionSources
import Testing
import WhereaboutsCore

/// Issue 12, item 6: the `--reports` CSV alone is enough to replay the display exactly. The test
/// rebuilds each wire message from a CSV row (`tst` = `time` rounded down, `ms` as carried),
/// computes the displayed position at every fix of the track, and compares the largest miss with
/// the live error the evaluator printed in its JSON.
@Suite(.enabled(if: EvalBinary.executable != nil, "whereabouts-eval is not built"))
struct ReportsReplayTests {
    static let track = EvalBinary.fixture("short-drive.gpx")

    @Test("Replaying the CSV's messages gives each policy's bound and its printed live error", arguments: [25.0, 50])
    func replay(epsilon: Double) async throws {
        let directory = try EvalBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csv = directory.appendingPathComponent("reports.csv")
        // A short silence limit, so that `T` reports and braking horizons shorter than it both
        // occur and `ms` matters for the replay.
        let output = try await EvalBinary.run([
            Self.track.path, "--policy", "dead-reckoning,bounded,optimum", "--epsilon", String(epsilon),
            "--max-silence", "20", "--reports", csv.path, "--format", "json",
        ])
        #expect(output.status == 0, "\(output.stderr)")

        let fixes = try RecordedTrack.read(contentsOf: Self.track, logger: Logger(label: "test")).fixes
        #expect(fixes.count == 300)
        let rows = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let messages = Dictionary(grouping: rows, by: { $0[0] }).mapValues { rows in
            rows.map { row -> (index: Int, message: LocationMessage) in
                let held = row[8].isEmpty
                let time = Double(row[2]) ?? .nan
                return (Int(row[1]) ?? -1, LocationMessage(
                    tid: "wb", tst: Int(time.rounded(.down)), lat: Double(row[3]) ?? .nan, lon: Double(row[4]) ?? .nan, acc: 5,
                    t: row[5], ve: held ? nil : Double(row[6]), vn: held ? nil : Double(row[7]), ms: Int(row[8]),
                    tr: row.count > 9 ? Double(row[9]) : nil
                ))
            }
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let policies = try #require((object["tracks"] as? [[String: Any]])?.first?["policies"] as? [[String: Any]])
        #expect(policies.count == 3)
        var horizons: Set<Int> = []
        for policy in policies {
            let name = try #require(policy["policy"] as? String)
            let sent = try #require(messages[name], "no CSV rows for \(name)")
            #expect(sent.count == policy["reports"] as? Int)
            #expect(sent.first?.index == 0)
            // The display at every fix, from the newest message sent at or before it.
            var worst = 0.0, current = 0
            for (index, fix) in fixes.enumerated() {
                while current + 1 < sent.count, sent[current + 1].index <= index { current += 1 }
                let shown = sent[current].message.displayedPosition(at: fix.time)
                worst = max(worst, Geodesy.distance(shown, fix.coordinate))
            }
            let printed = try #require((policy["predictError"] as? [String: Any])?["max"] as? Double)
            #expect(worst <= epsilon + 1e-6, "\(name): replayed display misses a fix by \(worst) m")
            #expect(abs(worst - printed) < 0.05, "\(name): replayed \(worst) m, evaluator printed \(printed) m")
            horizons.formUnion(sent.compactMap(\.message.ms))
        }
        // The horizons carried are real ones: the silence limit, and nothing above it.
        #expect(horizons.contains(20))
        #expect(horizons.allSatisfy { (1...20).contains($0) })
    }
}
