import Foundation
import WhereaboutsCore

/// The fewest reports of dead reckoning's kind that keep the live error under the `predict`
/// display model within `epsilon` at every accepted fix, chosen with hindsight: the yardstick the
/// online policies are measured against (`whereabouts-eval`'s `optimum` rows and ratios).
///
/// Each report carries what ``DeadReckoningPolicy`` would send at that fix: the velocity from the
/// previous accepted fix (none for the first), capped like dead reckoning's (`maxSpeed`), rounded
/// as the wire rounds it, with `ms` = `maxSilence`. A report made at fix `i` covers fix `j > i`
/// under exactly dead reckoning's rule: the displayed position is within `epsilon` of fix `j` and,
/// while the display extrapolates, less than `maxSilence` seconds have passed (the `T` rule). The
/// first fix is always reported.
///
/// Dynamic programming from the end: `cost[i]` is the fewest reports covering fixes `i...` when
/// fix `i` is reported; `cost[i] = 1 + min(cost[k])` over the fixes `k` from `i + 1` to one past
/// the last fix that the report at `i` covers. Computing the reaches costs O(n·w), `w` the mean
/// reach in fixes; the range minima come from a monotonic stack with binary search, O(n log n).
/// Dead reckoning's own choice (report at the first fix not covered) is one of the candidates, so
/// the optimum never needs more reports than dead reckoning.
package enum OfflineOptimum {
    /// The indices (ascending) and reports of an optimal choice on `track`.
    package static func reports(
        on track: [Fix], epsilon: Double, maxSilence: Int, maxSpeed: Double? = nil
    ) -> [(index: Int, report: Report)] {
        let n = track.count
        guard n > 0 else { return [] }
        // reach[i]: the last fix index covered by a report at fix i.
        var reach = [Int](repeating: 0, count: n)
        for i in 0..<n {
            var guardian = PredictionGuard(epsilon: epsilon, maxSilence: maxSilence, maxSpeed: maxSpeed)
            _ = guardian.report(track[i], trigger: .moving, velocity: velocity(at: i, on: track))
            var j = i + 1
            while j < n, guardian.trigger(for: track[j]) == nil { j += 1 }
            reach[i] = j - 1
        }

        // cost[i] and the next report after i, filled from the end.
        var cost = [Int](repeating: 0, count: n)
        var next = [Int](repeating: n, count: n)
        // Indices of candidate next reports: increasing index from the top (the end of the array)
        // down, strictly decreasing cost; a later index with no smaller cost is never better.
        var stack: [Int] = []
        for i in stride(from: n - 1, through: 0, by: -1) {
            if reach[i] >= n - 1 {
                cost[i] = 1
            } else {
                // The deepest stack entry (largest index, smallest cost) with index <= reach + 1.
                let limit = reach[i] + 1
                var low = 0, high = stack.count - 1, found = stack.count - 1
                while low <= high {
                    let middle = (low + high) / 2
                    if stack[middle] <= limit {
                        found = middle
                        high = middle - 1
                    } else {
                        low = middle + 1
                    }
                }
                let k = stack[found]
                cost[i] = 1 + cost[k]
                next[i] = k
            }
            while let top = stack.last, cost[top] >= cost[i] { stack.removeLast() }
            stack.append(i)
        }

        // Replay the choice through one guard so that the trigger letters read as a policy's.
        var chosen: [(index: Int, report: Report)] = []
        chosen.reserveCapacity(cost[0])
        var guardian = PredictionGuard(epsilon: epsilon, maxSilence: maxSilence, maxSpeed: maxSpeed)
        var index = 0
        while index < n {
            let trigger = guardian.trigger(for: track[index]) ?? .moving
            chosen.append((index, guardian.report(track[index], trigger: trigger, velocity: velocity(at: index, on: track))))
            index = next[index]
        }
        return chosen
    }

    /// Dead reckoning's velocity at fix `i`: from the fix before it.
    private static func velocity(at i: Int, on track: [Fix]) -> Velocity? {
        i > 0 ? track[i].impliedVelocity(from: track[i - 1]) : nil
    }
}
