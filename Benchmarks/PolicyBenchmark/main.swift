// Policy throughput benchmark: how many fixes per second one core pushes through each reporting
// policy, against two baselines measured in the same run (a bare loop summing haversine distances
// between consecutive fixes, and the `interval` policy).
//
// Build and run: swift build -c release --product PolicyBenchmark && .build/release/PolicyBenchmark [fixes [policy]]
// (with a policy name, such as bounded, only the baseline and the policies whose name starts with it;
// `bounded(50m), ms 1000000` is bounded without a silence limit, whose rate must match bounded's).
// Each loop is timed by the wall clock and by this thread's CPU time (best of five each); on a
// shared machine the CPU time is one core's throughput, the wall clock what the load left of it.
import Foundation
import WhereaboutsCore

/// A deterministic 1 Hz vehicle track: cruising with slow turns, speed changes, stops and GPS
/// noise, generated from a fixed seed so every run measures the same input.
func syntheticTrack(count: Int) -> [Fix] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    let origin = Coordinate(latitude: 52.66, longitude: -8.63)
    let projection = LocalProjection(origin: origin)
    var east = 0.0, north = 0.0, heading = 0.0, speed = 10.0, stopLeft = 0
    var fixes: [Fix] = []
    fixes.reserveCapacity(count)
    for second in 0..<count {
        if stopLeft > 0 {
            stopLeft -= 1
        } else {
            if random() < 0.005 { stopLeft = Int(random() * 60) }
            heading += (random() - 0.5) * 0.1
            speed = min(30, max(2, speed + (random() - 0.5)))
            east += speed * sin(heading)
            north += speed * cos(heading)
        }
        let noise = 3.0
        let point = projection.unproject(east: east + (random() - 0.5) * noise, north: north + (random() - 0.5) * noise)
        fixes.append(Fix(time: Date(timeIntervalSince1970: 1_700_000_000 + Double(second)), latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5))
    }
    return fixes
}

/// The CPU time (s) this thread has used: unlike the wall clock, it does not count the time the
/// scheduler gives other processes, so on a shared machine it measures one core's throughput.
func threadCPUTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Runs `body` `repetitions` times and returns the best wall time and the best thread CPU time in
/// seconds.
func best(_ repetitions: Int, _ body: () -> Int) -> (seconds: Double, cpuSeconds: Double, result: Int) {
    var bestTime = Double.infinity
    var bestCPU = Double.infinity
    var result = 0
    for _ in 0..<repetitions {
        let start = ContinuousClock.now
        let cpuStart = threadCPUTime()
        result = body()
        let cpu = threadCPUTime() - cpuStart
        let elapsed = ContinuousClock.now - start
        bestTime = min(bestTime, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        bestCPU = min(bestCPU, cpu)
    }
    return (bestTime, bestCPU, result)
}

func run<P: ReportingPolicy>(_ make: () -> P, on track: [Fix]) -> Int {
    var policy = make()
    var reports = 0
    for fix in track where policy.consider(fix) != nil { reports += 1 }
    return reports
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 2_000_000
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

let cases: [(String, () -> Int)] = [
    ("interval(10s)", { run({ IntervalPolicy() }, on: track) }),
    ("seed", { run({ SeedPolicy() }, on: track) }),
    ("dead-reckoning(50m)", { run({ DeadReckoningPolicy() }, on: track) }),
    ("bounded(50m)", { run({ BoundedPolicy() }, on: track) }),
    // Issue 12, item 5: the per-fix cost must not depend on maxSilence.
    ("bounded(50m), ms 1000000", { run({ BoundedPolicy(parameters: .init(maxSilence: 1_000_000)) }, on: track) }),
]
let only = CommandLine.arguments.dropFirst(2).first
for (name, body) in cases where only.map({ name.hasPrefix($0) }) ?? true {
    let measured = best(repetitions, body)
    let rate = Double(count) / measured.seconds
    let cpuRate = Double(count) / measured.cpuSeconds
    print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%8.2f M fixes/s (%.2f x)      %8.2f M fixes/s (%.2f x)   %d reports", rate / 1e6, rate / baselineRate, cpuRate / 1e6, cpuRate / baselineCPURate, measured.result))
}
