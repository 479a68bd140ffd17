import Foundation
import WhereaboutsCore
import SystemSupport

/// What was sent, acknowledged and shown, per device; thread-safe (one lock: `LockedState`).
final class Ledger: Sendable {
    private struct State {
        var sentAt: [[Int: ContinuousClock.Instant]]
        var newestAcknowledged: [Int]
        var acknowledgedTsts: [Set<Int>]
        var confirmedTsts: [Set<Int>]
        var confirmed = 0
        var resent = 0
        var newestShown: [Int]
        var latencies: [Double] = []
        /// Each timed report's sending instant, beside its latency in ``latencies``.
        var timedAt: [ContinuousClock.Instant] = []
        var sent = 0
        var acknowledged = 0
    }

    private let state: LockedState<State>
    private let indexOfUser: [String: Int]
    /// Each report's path, for the resent ones' classification (``ResendTrace``).
    let trace: ResendTrace

    init(devices: Int) {
        state = LockedState(State(
            sentAt: Array(repeating: [:], count: devices), newestAcknowledged: Array(repeating: 0, count: devices),
            acknowledgedTsts: Array(repeating: [], count: devices), confirmedTsts: Array(repeating: [], count: devices), newestShown: Array(repeating: 0, count: devices)))
        indexOfUser = Dictionary(uniqueKeysWithValues: (0..<devices).map { ("d\($0)", $0) })
        trace = ResendTrace(devices: devices)
    }

    /// The device index of user `d<index>`, if it is one of the fleet.
    func index(ofUser user: String) -> Int? { indexOfUser[user] }

    func sent(_ index: Int, tst: Int, at instant: ContinuousClock.Instant) {
        state.withLock {
            $0.sentAt[index][tst] = instant
            $0.sent += 1
        }
    }

    /// A report was acknowledged (once per report: a report published again counts once).
    func acknowledged(_ index: Int, tst: Int) {
        state.withLock {
            guard $0.acknowledgedTsts[index].insert(tst).inserted else { return }
            $0.acknowledged += 1
            $0.newestAcknowledged[index] = max($0.newestAcknowledged[index], tst)
        }
    }

    /// A subscriber's receipt covered a report (docs/receipts.md).
    func confirmed(_ index: Int, tst: Int) {
        state.withLock {
            guard $0.confirmedTsts[index].insert(tst).inserted else { return }
            $0.confirmed += 1
        }
    }

    /// A report went out again because no receipt covered it in time.
    func resent() {
        state.withLock { $0.resent += 1 }
    }

    /// Whether every acknowledged report is covered by a receipt.
    var allConfirmed: Bool {
        state.withLock { state in state.confirmed >= state.acknowledged }
    }

    /// Acknowledged reports no receipt covered (lost end to end, as a publisher sees it), resends,
    /// and a few of the unconfirmed as `d<index>@<tst>`.
    func receiptSummary() -> (unconfirmed: Int, resent: Int, examples: [String]) {
        state.withLock { state in
            var missing = 0
            var examples: [String] = []
            for (index, tsts) in state.acknowledgedTsts.enumerated() {
                for tst in tsts where !state.confirmedTsts[index].contains(tst) {
                    missing += 1
                    if examples.count < 5 { examples.append("d\(index)@\(tst)") }
                }
            }
            return (missing, state.resent, examples)
        }
    }

    /// A circle view arrived: each member's fix that is newer than what was shown is timed.
    func view(_ payload: Data) {
        guard let view = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
              let members = view["members"] as? [[String: Any]] else { return }
        let now = ContinuousClock.now
        var shown: [(Int, Int)] = []
        for member in members {
            guard let user = member["user"] as? String, let index = indexOfUser[user],
                  let fix = member["fix"] as? [String: Any], let tst = fix["tst"] as? Int else { continue }
            shown.append((index, tst))
        }
        trace.shown(shown)
        state.withLock { state in
            for (index, tst) in shown where tst > state.newestShown[index] {
                state.newestShown[index] = tst
                if let sent = state.sentAt[index].removeValue(forKey: tst) {
                    state.latencies.append((now - sent).seconds * 1000)
                    state.timedAt.append(sent)
                }
            }
        }
    }

    /// The newest fix per device in `payloads` (circle views), by device index.
    private func newestFixes(_ payloads: [Data]) -> [Int: Int] {
        var newest: [Int: Int] = [:]
        for payload in payloads {
            guard let view = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
                  let members = view["members"] as? [[String: Any]] else { continue }
            for member in members {
                guard let user = member["user"] as? String, let index = indexOfUser[user],
                      let fix = member["fix"] as? [String: Any], let tst = fix["tst"] as? Int else { continue }
                newest[index] = max(newest[index] ?? 0, tst)
            }
        }
        return newest
    }

    /// Of the reports lost from the views (``summary()``), how many the retained views in
    /// `retained` (read afresh from a node at the end) show, and how many they do not, with a few
    /// examples of each as `d<index>@<tst>`: shown there, the watcher missed a view the cluster
    /// kept; not shown there, the cluster's retained view never had it.
    func lostAgainstRetained(_ retained: [Data]) -> (inRetained: Int, notInRetained: Int, examples: [String]) {
        let newest = newestFixes(retained)
        return state.withLock { state in
            var inRetained = 0, notInRetained = 0
            var examples: [String] = []
            for (index, tsts) in state.acknowledgedTsts.enumerated() {
                for tst in tsts where tst > state.newestShown[index] {
                    let kept = (newest[index] ?? 0) >= tst
                    if kept { inRetained += 1 } else { notInRetained += 1 }
                    if examples.count < 6 { examples.append("d\(index)@\(tst)\(kept ? " retained" : " not retained")") }
                }
            }
            return (inRetained, notInRetained, examples)
        }
    }

    /// Whether every device's newest acknowledged report has been shown.
    var allShown: Bool {
        state.withLock { state in zip(state.newestAcknowledged, state.newestShown).allSatisfy { $0 <= $1 } }
    }

    /// Totals: a report is lost when it was acknowledged and neither it nor a newer report of its
    /// device was ever shown in a view.
    func summary() -> (sent: Int, acknowledged: Int, shown: Int, lost: Int, p50: Double, p99: Double) {
        state.withLock { state in
            let lost = zip(state.acknowledgedTsts, state.newestShown).map { tsts, shown in tsts.filter { $0 > shown }.count }.reduce(0, +)
            let sorted = state.latencies.sorted()
            func percentile(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            return (state.sent, state.acknowledged, sorted.count, lost, percentile(0.5), percentile(0.99))
        }
    }

    /// Where in the run the latency's tail sits: per `window` of sending time from `start`, the
    /// timed reports, their p99 and the largest, as "0-5 s 1,234 p99 120 max 900 ms; ...".
    func latencyProfile(from start: ContinuousClock.Instant, window: Duration) -> String {
        state.withLock { state in
            var buckets: [Int: [Double]] = [:]
            for (sent, ms) in zip(state.timedAt, state.latencies) {
                let index = Int(max(0, (sent - start) / window))
                buckets[index, default: []].append(ms)
            }
            let width = Int(window.components.seconds)
            return buckets.keys.sorted().map { index in
                let sorted = buckets[index, default: []].sorted()
                let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
                return "\(index * width)-\((index + 1) * width) s \(sorted.count) p99 \(Int(p99)) max \(Int(sorted.last ?? 0)) ms"
            }.joined(separator: "; ")
        }
    }

    /// Acknowledged reports missing from the subscribers' histories: `stored` maps a device's
    /// user name (`d<index>`) to the `tst` of every location of it the histories hold.
    func lostFromHistory(_ stored: [String: Set<Int>]) -> (lost: Int, examples: [String]) {
        state.withLock { state in
            var lost = 0
            var examples: [String] = []
            for (index, tsts) in state.acknowledgedTsts.enumerated() {
                let kept = stored["d\(index)"] ?? []
                for tst in tsts where !kept.contains(tst) {
                    lost += 1
                    if examples.count < 5 { examples.append("d\(index)@\(tst)") }
                }
            }
            return (lost, examples)
        }
    }
}
