// PlaceDayBenchmark: what the publisher's place rule saves on a simulated working day.
//
// A day from the simulator (PositionSources/Simulator/SimulatedDay.swift): home until 08:00, a
// 25-minute drive to work, work until 17:00, the same drive back, home until midnight, one fix a
// second. Each active policy runs the whole day twice, in the same run: alone (the baseline), and
// with the place rule (PlaceProfilePolicy: Home and Work, 100 and 150 m, significant inside,
// active after leaving, the publisher's 25 m margin and 60 s dwell). Reports, heartbeats (after
// every 900 s of silence, as whereabouts-pub sends them), radio wake-ups (SPEC §5), bytes and the
// worst live error are counted by the evaluator, exactly as whereabouts-eval does.
//
//   swift run -c release PlaceDayBenchmark [--seed N] [--days N]
//
// PLACE_DAY_TRACE=1 prints every transition (time, event, place, distance from the centre, acc).
// PlacesTests/benchmarkRuleIsThePublishers checks that PlaceProfilePolicy reports what the
// publisher's Reporter reports.
import ArgumentParser
import Foundation
import PositionSources
import EvalKit
import WhereaboutsCore

@main
struct PlaceDayBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "PlaceDayBenchmark",
        abstract: "Measures what the publisher's place rule saves on a simulated working day.",
        discussion: """
            A simulated day (home until 08:00, a 25-minute drive to work, work until 17:00, the \
            drive back, home until midnight, one fix a second). Each active policy (bounded, \
            interval, seed) runs every day twice in the same run: alone (the baseline) and with \
            the place rule (Home 100 m and Work 150 m, significant inside, active after leaving). \
            Prints reports, transitions, heartbeats, radio wake-ups, bytes, energy, radio-on \
            hours and the worst live error, and the ratios of reports and wake-ups to the \
            policy alone; once with heartbeats after every 900 s of silence, once without. \
            PLACE_DAY_TRACE=1 also prints every place transition.
            """)

    @Option(help: "The simulator's seed for the first day; day n (from 0) uses seed + 101 n.")
    var seed: UInt64 = 1

    @Option(help: "The number of simulated days, one after another, summed in the tables.")
    var days = 1

    func validate() throws {
        guard days > 0 else { throw ValidationError("--days must be at least 1.") }
    }

    func run() {
        let sample = SimulatedDay(options: SimulatedDayOptions(seed: seed))
        print("Simulated day (seed \(seed), \(days) day(s)): \(sample.fixes.count) fixes a day; work is \(Int(Geodesy.distance(sample.home, sample.work))) m from home")
        print("\nWith heartbeats every 900 s of silence (as whereabouts-pub sends them):")
        print(table(evaluate(heartbeat: HeartbeatModel.defaultInterval, seed: seed, days: days)))
        print("\nReports only (no heartbeats counted):")
        print(table(evaluate(heartbeat: nil, seed: seed, days: days)))
    }
}

struct Row {
    var policy: String
    var reports = 0
    var transitions = 0
    var heartbeats = 0
    var wakeUps = 0
    var bytes = 0
    var energy = 0.0
    var predictMax = 0.0
    /// Hours the radio is out of idle: the union of a 10 s tail after every message (reports and
    /// heartbeats). The wake-up count prices each promotion; this shows what a stream of reports
    /// less than 10 s apart costs instead (the radio never sleeps).
    var radioOnHours = 0.0
}

/// Seconds covered by a tail of `tail` seconds after each of `times` (ascending).
func radioOnSeconds(_ times: [Date], tail: Double = RadioEnergy().tail) -> Double {
    var total = 0.0
    var coveredUntil = Date.distantPast
    for time in times {
        let end = time.addingTimeInterval(tail)
        total += end.timeIntervalSince(max(time, coveredUntil)) > 0 ? end.timeIntervalSince(max(time, coveredUntil)) : 0
        coveredUntil = max(coveredUntil, end)
    }
    return total
}

let wire = WireCost(topic: "owntracks/alice/phone", tid: "ph")
let eventWire = WireCost(topic: "owntracks/alice/phone/event", tid: "ph")
let actives: [(String, @Sendable () -> any ReportingPolicy)] = [
    ("bounded", { BoundedPolicy() }),
    ("interval", { IntervalPolicy() }),
    ("seed", { SeedPolicy() }),
]

func evaluate(heartbeat: Double?, seed: UInt64, days: Int) -> [Row] {
    var evaluator = Evaluator(wire: wire)
    evaluator.heartbeat = heartbeat.map { HeartbeatModel(interval: $0, wire: wire) }
    var rows: [String: Row] = [:]
    var order: [String] = []
    func add(_ run: PolicyRun, on track: [Fix], transitions: [PlaceTransition]) {
        let e = run.evaluation
        let sent = run.reports.map(\.report.fix.time)
        let beats = evaluator.heartbeat?.heartbeats(from: track.first!.time, to: track.last!.time, sent: sent) ?? []
        let transitionBytes = transitions.reduce(0) { total, transition in
            let size = (try? JSONEncoder().encode(TransitionMessage(transition, tid: "ph")).count) ?? 0
            return total + eventWire.packetSize(payloadSize: size)
        }
        if rows[e.policy] == nil { order.append(e.policy) }
        var row = rows[e.policy] ?? Row(policy: e.policy)
        row.reports += e.reports
        row.transitions += transitions.count
        row.heartbeats += e.heartbeats
        row.wakeUps += e.wakeUps
        row.bytes += e.bytes + transitionBytes
        row.energy += e.energy
        row.predictMax = max(row.predictMax, e.predictError.max)
        row.radioOnHours += radioOnSeconds((sent + beats).sorted()) / 3600
        rows[e.policy] = row
    }
    for day in 0..<days {
        let simulated = SimulatedDay(options: SimulatedDayOptions(seed: seed &+ UInt64(day) &* 101))
        var filter = FixFilter()
        let track = simulated.fixes.filter { filter.accept($0, now: $0.time) }
        let places = [
            Place(name: "Home", lat: simulated.home.latitude, lon: simulated.home.longitude, radius: 100,
                  profile: .significant, profileOnLeave: .active),
            Place(name: "Work", lat: simulated.work.latitude, lon: simulated.work.longitude, radius: 150,
                  profile: .significant, profileOnLeave: .active),
        ]
        for (_, make) in actives {
            add(evaluator.evaluate(make(), on: track), on: track, transitions: [])
            var withPlaces = PlaceProfilePolicy(places: places, active: make, significant: { SignificantPolicy() })
            let reports = Evaluator.reports(of: &withPlaces, on: track).map {
                EvaluatedReport(index: $0.index, report: $0.report, message: wire.message(for: $0.report))
            }
            add(evaluator.measure(policy: withPlaces.name, reports: reports, on: track), on: track, transitions: withPlaces.transitions)
            if ProcessInfo.processInfo.environment["PLACE_DAY_TRACE"] != nil {
                for t in withPlaces.transitions {
                    guard let fix = t.fix else { continue }
                    print("  \(fix.time) \(t.event.rawValue) \(t.place.name) \(Int(Geodesy.distance(t.place.centre, fix.coordinate))) m acc \(fix.horizontalAccuracy ?? -1)")
                }
            }
        }
    }
    return order.compactMap { rows[$0] }
}

func table(_ rows: [Row]) -> String {
    let headings = ["policy", "reports", "transitions", "heartbeats", "wake-ups", "bytes", "energy J", "radio-on h", "predict max m", "reports vs alone", "wake-ups vs alone"]
    var lines = [headings]
    for (index, row) in rows.enumerated() {
        let baseline = index.isMultiple(of: 2) ? row : rows[index - 1]
        let ratio = baseline.wakeUps > 0 ? String(format: "%.2f", Double(row.wakeUps) / Double(baseline.wakeUps)) : "-"
        let reportRatio = baseline.reports > 0 ? String(format: "%.2f", Double(row.reports) / Double(baseline.reports)) : "-"
        lines.append([
            row.policy, String(row.reports), String(row.transitions), String(row.heartbeats), String(row.wakeUps),
            String(row.bytes), String(format: "%.0f", row.energy), String(format: "%.2f", row.radioOnHours),
            String(format: "%.1f", row.predictMax), reportRatio, ratio,
        ])
    }
    let widths = headings.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
    return lines.map { line in
        line.enumerated().map { column, cell in
            let pad = String(repeating: " ", count: widths[column] - cell.count)
            return column == 0 ? cell + pad : pad + cell
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
