import ArgumentParser
import Foundation
import WhereaboutsCore

/// Policy throughput benchmark: how many fixes per second one core pushes through each reporting
/// policy, against two baselines measured in the same run (a bare loop summing haversine
/// distances between consecutive fixes, and the `interval` policy).
///
/// Each loop is timed by the wall clock and by this thread's CPU time (best of five each); on a
/// shared machine the CPU time is one core's throughput, the wall clock what the load left of it.
@main
struct PolicyBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "PolicyBenchmark",
        abstract: "Fixes per second through each reporting policy, as a ratio to a haversine loop in the same run.",
        discussion: """
            Builds a deterministic synthetic 1 Hz vehicle track (slow turns, speed changes, stops, \
            3 m of noise) and times, best of five, a bare loop summing haversine distances between \
            consecutive fixes (the baseline), then interval(10s), seed, dead-reckoning(50m), \
            bounded(50m) and bounded(50m) without a silence limit (`bounded(50m), ms 1000000`, \
            whose rate must match bounded's: issue 12, item 5). Each row gives fixes per second by \
            the wall clock and by this thread's CPU time, with the ratio to the baseline, and the \
            reports the policy sent. Build with -c release; results: BENCHMARKS.md, "Policy throughput".
            """
    )

    @Argument(help: ArgumentHelp("How many synthetic fixes each loop pushes through.", valueName: "fixes"))
    var count: Int = 2_000_000

    @Argument(help: ArgumentHelp(
        "Time only the policies whose name starts with this (such as bounded, or 'bounded(50m),' for the one without a silence limit; none for the baseline alone, as callgrind's reference); the baseline always runs.",
        valueName: "policy"))
    var only: String?

    /// The timed loops' names, in the order they run.
    static let policyNames = ["interval(10s)", "seed", "dead-reckoning(50m)", "bounded(50m)", "bounded(50m), ms 1000000"]

    func validate() throws {
        guard count >= 2 else { throw ValidationError("<fixes> must be at least 2, not \(count).") }
        if let only, only != "none", !Self.policyNames.contains(where: { $0.hasPrefix(only) }) {
            throw ValidationError("No policy's name starts with '\(only)'; the names are: \(Self.policyNames.joined(separator: "; ")) (or none, for the baseline alone).")
        }
    }

    func run() {
        let track = syntheticTrack(count: count)
        let repetitions = 5
        print("PolicyBenchmark: \(count) synthetic 1 Hz fixes, best of \(repetitions) runs, one core")

        let baseline = best(repetitions) {
            var total = 0.0
            for index in 1..<track.count { total += track[index].distance(from: track[index - 1]) }
            return Int(total)
        }
        let baselineRate = Double(count) / baseline.seconds
        let baselineCPURate = Double(count) / baseline.cpuSeconds
        print("loop".padding(toLength: 28, withPad: " ", startingAt: 0) + "   wall clock                    thread CPU time")
        print("baseline: haversine sum".padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%8.2f M fixes/s (1.00 x)      %8.2f M fixes/s (1.00 x)", baselineRate / 1e6, baselineCPURate / 1e6))

        let loops: [() -> Int] = [
            { countReports({ IntervalPolicy() }, on: track) },
            { countReports({ SeedPolicy() }, on: track) },
            { countReports({ DeadReckoningPolicy() }, on: track) },
            { countReports({ BoundedPolicy() }, on: track) },
            // Issue 12, item 5: the per-fix cost must not depend on maxSilence.
            { countReports({ BoundedPolicy(parameters: .init(maxSilence: 1_000_000)) }, on: track) },
        ]
        for (name, body) in zip(Self.policyNames, loops) where only.map({ name.hasPrefix($0) }) ?? true {
            let measured = best(repetitions, body)
            let rate = Double(count) / measured.seconds
            let cpuRate = Double(count) / measured.cpuSeconds
            print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%8.2f M fixes/s (%.2f x)      %8.2f M fixes/s (%.2f x)   %d reports", rate / 1e6, rate / baselineRate, cpuRate / 1e6, cpuRate / baselineCPURate, measured.result))
        }
    }
}
