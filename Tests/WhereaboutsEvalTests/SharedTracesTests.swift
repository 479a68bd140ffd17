import Foundation
import Testing

/// The measured goals on the shared recorded tracks (skipped when `../shared/traces` is absent).
@Suite(.enabled(if: EvalBinary.hasSharedTraces && EvalBinary.executable != nil, "the shared traces or the binary are absent"))
struct SharedTracesTests {
    static let files = ["around-visnjan-with-car.gpx", "bus-limerick.gpx", "cerknicko-jezero.gpx", "korita-zbevnica.gpx", "sailboat-zeus.nmea"]

    typealias Measures = [String: [String: (reports: Int, predictMax: Double, holdMax: Double)]]

    /// One run of the evaluator over the five tracks, shared by every test of the suite (each
    /// used to start its own: five debug runs of every policy at once).
    private static let shared = Task { try await measureOnce() }

    /// Every policy on every shared track: reports and predict max per policy, per track.
    static func measure() async throws -> Measures { try await shared.value }

    private static func measureOnce() async throws -> Measures {
        let paths = files.map { EvalBinary.sharedTraces.appendingPathComponent($0).path }
        let output = try await EvalBinary.run(paths + ["--format", "json"])
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        var result: [String: [String: (reports: Int, predictMax: Double, holdMax: Double)]] = [:]
        for track in object?["tracks"] as? [[String: Any]] ?? [] {
            var policies: [String: (reports: Int, predictMax: Double, holdMax: Double)] = [:]
            for policy in track["policies"] as? [[String: Any]] ?? [] {
                let predict = (policy["predictError"] as? [String: Any])?["max"] as? Double ?? .infinity
                let hold = (policy["holdError"] as? [String: Any])?["max"] as? Double ?? .infinity
                policies[policy["policy"] as? String ?? ""] = (policy["reports"] as? Int ?? 0, predict, hold)
            }
            result[track["name"] as? String ?? ""] = policies
        }
        return result
    }

    /// bounded(50m)'s reports per shared track since issue 12 (BENCHMARKS.md); regression values,
    /// no longer the yardstick (the corpus is).
    static let boundedReports = ["around-visnjan-with-car.gpx": 17, "bus-limerick.gpx": 127, "cerknicko-jezero.gpx": 47,
                                 "korita-zbevnica.gpx": 78, "sailboat-zeus.nmea": 2]

    @Test("bounded(50m) keeps the live error within 50 m on every track, and needs fewer reports than dead reckoning over the five")
    func boundedGoals() async throws {
        let measured = try await Self.measure()
        #expect(measured.count == Self.files.count)
        var boundedTotal = 0, plainTotal = 0
        for file in Self.files {
            let policies = try #require(measured[file])
            let bounded = try #require(policies["bounded(50m)"])
            let plain = try #require(policies["dead-reckoning(50m)"])
            let seed = try #require(policies["seed"])
            #expect(bounded.predictMax <= 50, "\(file)")
            #expect(bounded.reports == Self.boundedReports[file], "\(file)")
            // around-visnjan ties with seed (17); the bus ride needs 127 against dead reckoning's 126
            // and the hike 78 against 77 (74 with the no-velocity-below-0.2 m/s rule, removed because
            // it did not pay off on left-out data without a silence limit): a rule for one track would
            // be fitted to it (docs/policies.md, "Why each rule is there").
            #expect(bounded.reports <= seed.reports, "\(file)")
            boundedTotal += bounded.reports
            plainTotal += plain.reports
        }
        #expect(boundedTotal < plainTotal)
    }

    @Test("seed and the 10 s timer match SPEC §5's reference numbers",
          arguments: [("bus-limerick.gpx", 180, 133.0, 294, 129.0), ("around-visnjan-with-car.gpx", 17, 208.0, 30, 208.0),
                      ("korita-zbevnica.gpx", 103, 50.0, 449, 13.0), ("cerknicko-jezero.gpx", 55, 471.0, 164, 198.0)])
    func reference(file: String, seedReports: Int, seedError: Double, timerReports: Int, timerError: Double) async throws {
        let policies = try #require(try await Self.measure()[file])
        let seed = try #require(policies["seed"])
        let timer = try #require(policies["interval(10s)"])
        #expect(seed.reports == seedReports)
        #expect(abs(seed.holdMax - seedError) < 1)
        #expect(timer.reports == timerReports)
        #expect(abs(timer.holdMax - timerError) < 1)
    }
}
