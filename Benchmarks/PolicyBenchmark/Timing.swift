import Foundation
import WhereaboutsCore

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

/// Pushes every fix of `track` through a fresh policy from `make` and returns its report count.
func countReports<P: ReportingPolicy>(_ make: () -> P, on track: [Fix]) -> Int {
    var policy = make()
    var reports = 0
    for fix in track where policy.consider(fix) != nil { reports += 1 }
    return reports
}
