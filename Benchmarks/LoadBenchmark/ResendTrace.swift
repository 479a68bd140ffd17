import Foundation
import SystemSupport

/// Where the first copy of each resent report went (issue 27 item 4): for every report, when it
/// was published, acknowledged, resent, covered by a receipt (at the device, and as the plain
/// receipt watcher saw the subscriber publish it), shown in a view with its own `tst`, and seen
/// by a plain QoS 0 watcher of the reports; after the run, the subscribers' history row (its
/// `received_at`, and its `t`, which tells the first copy, `t`, from a resend, `r`; LoadDevice)
/// and duplicate counts. All times are wall-clock epoch seconds, the clock of `received_at`.
/// Thread-safe (one lock: `LockedState`).
final class ResendTrace: Sendable {
    /// One report of one device.
    struct Report {
        var seq: Int64 = 0
        var sent: Double = 0
        var acknowledged: Double?
        /// Receipt-timeout resends, and when the first went out.
        var resends = 0
        var firstResend: Double?
        /// When the device read a receipt that covered it.
        var confirmed: Double?
        /// When a circle view first showed exactly this fix.
        var shownExactly: Double?
        /// When the plain QoS 0 report watcher first got the first copy (`t` = `t`), and any resend.
        var firstCopySeen: Double?
        var resendSeen: Double?
        /// When LoadBenchmark's own persistent QoS 1 session (`--trace-session`) first got the
        /// first copy.
        var firstCopyInSession: Double?
    }

    private struct State {
        var reports: [[Int: Report]]
        /// Per device: each receipt the plain receipt watcher saw, as (seq, when), in arrival order.
        var receipts: [[(seq: Int64, at: Double)]]
    }

    private let state: LockedState<State>

    init(devices: Int) {
        state = LockedState(State(reports: Array(repeating: [:], count: devices), receipts: Array(repeating: [], count: devices)))
    }

    static var now: Double { Date().timeIntervalSince1970 }

    func published(_ index: Int, tst: Int, seq: Int64) {
        let at = Self.now
        state.withLock { $0.reports[index][tst] = Report(seq: seq, sent: at) }
    }

    func acknowledged(_ index: Int, tst: Int) {
        let at = Self.now
        state.withLock { state in
            if state.reports[index][tst]?.acknowledged == nil { state.reports[index][tst]?.acknowledged = at }
        }
    }

    func resent(_ index: Int, tst: Int) {
        let at = Self.now
        state.withLock { state in
            state.reports[index][tst]?.resends += 1
            if state.reports[index][tst]?.firstResend == nil { state.reports[index][tst]?.firstResend = at }
        }
    }

    func confirmed(_ index: Int, tst: Int) {
        let at = Self.now
        state.withLock { state in
            if state.reports[index][tst]?.confirmed == nil { state.reports[index][tst]?.confirmed = at }
        }
    }

    /// A view showed these (device, tst) fixes.
    func shown(_ fixes: [(Int, Int)]) {
        let at = Self.now
        state.withLock { state in
            for (index, tst) in fixes where state.reports[index][tst] != nil && state.reports[index][tst]?.shownExactly == nil {
                state.reports[index][tst]?.shownExactly = at
            }
        }
    }

    /// The plain report watcher got a copy of device `index`'s report `tst`; `resend` when its
    /// `t` marks a resend.
    func reportSeen(_ index: Int, tst: Int, resend: Bool) {
        let at = Self.now
        state.withLock { state in
            guard state.reports[index][tst] != nil else { return }
            if resend {
                if state.reports[index][tst]?.resendSeen == nil { state.reports[index][tst]?.resendSeen = at }
            } else if state.reports[index][tst]?.firstCopySeen == nil {
                state.reports[index][tst]?.firstCopySeen = at
            }
        }
    }

    /// LoadBenchmark's own persistent QoS 1 session got a copy of device `index`'s report `tst`.
    func sessionSeen(_ index: Int, tst: Int, resend: Bool) {
        let at = Self.now
        state.withLock { state in
            guard !resend, state.reports[index][tst] != nil, state.reports[index][tst]?.firstCopyInSession == nil else { return }
            state.reports[index][tst]?.firstCopyInSession = at
        }
    }

    /// The plain receipt watcher got a receipt for device `index` through `seq`.
    func receiptSeen(_ index: Int, seq: Int64) {
        let at = Self.now
        state.withLock { $0.receipts[index].append((seq, at)) }
    }

    /// A history row of a report: when the subscriber took it in, and its `t`.
    struct Stored {
        var receivedAt: Double
        var trigger: String
    }

    /// The classification of the resent reports, as one line.
    /// `stored` maps (device index, tst) to its history row (the earlier of the two shards' if both);
    /// `duplicates` is the subscribers' `whereabouts_sub_ingest_total{outcome="duplicate",reason="location"}`
    /// summed (nil when it could not be read), read at `duplicatesReadAt`; `session`: whether
    /// LoadBenchmark's own persistent session ran (`--trace-session`).
    func resendSummary(stored: [Int: [Int: Stored]], duplicates: Int?, duplicatesReadAt: Double, session: Bool) -> String {
        state.withLock { state in
            var resentReports = 0, resendCopies = 0
            var inViewBeforeResend = 0
            // (c): the first copy was in the history before the resend went out.
            var takenBefore = 0, receiptBeforeResend = 0, receiptAfterResend = 0, receiptNever = 0
            var behindEarlier = 0
            var receiptDelays: [Double] = []  // received_at to the receipt the watcher saw
            var deviceDelays: [Double] = []  // the watcher's receipt to the device's (when the device had one)
            // (b): the first copy taken in after the resend went out (`t` of the first copy).
            var lateFirst: [Double] = []  // received_at - sent
            // (a) or later than the resend: the resend's copy was stored.
            var resendStored = 0, resendStoredWatcherHadFirst = 0, resendStoredSessionHadFirst = 0
            var waitedForFirst: [Double] = []  // of resendStored: from the first copy's publish to the duplicates' reading
            var watcherLatency: [Double] = []  // of resendStored with the first copy seen: seen - sent
            var notStored = 0
            var examples: [String] = []
            for (index, reports) in state.reports.enumerated() {
                let receipts = state.receipts[index]
                let resentSeqs = Set(reports.values.filter { $0.resends > 0 }.map(\.seq))
                for (tst, report) in reports.sorted(by: { $0.key < $1.key }) {
                    guard report.resends > 0, let resend = report.firstResend else { continue }
                    resentReports += 1
                    resendCopies += report.resends
                    if let shown = report.shownExactly, shown < resend { inViewBeforeResend += 1 }
                    guard let row = stored[index]?[tst] else {
                        notStored += 1
                        continue
                    }
                    if row.trigger == "r" {
                        resendStored += 1
                        waitedForFirst.append(duplicatesReadAt - report.sent)
                        if report.firstCopyInSession != nil { resendStoredSessionHadFirst += 1 }
                        if let seen = report.firstCopySeen {
                            resendStoredWatcherHadFirst += 1
                            watcherLatency.append(seen - report.sent)
                        }
                        if examples.count < 4 {
                            examples.append(String(format: "d%d@%d resend stored first (first copy %@)", index, tst,
                                                   report.firstCopySeen.map { String(format: "seen by the plain watcher %.1f s after its publish", $0 - report.sent) } ?? "not seen by the plain watcher"))
                        }
                    } else if row.receivedAt >= resend {
                        lateFirst.append(row.receivedAt - report.sent)
                    } else {
                        takenBefore += 1
                        if resentSeqs.contains(where: { $0 < report.seq }) { behindEarlier += 1 }
                        let receipt = receipts.first { $0.seq >= report.seq }?.at
                        if let receipt {
                            receiptDelays.append(receipt - row.receivedAt)
                            if receipt < resend { receiptBeforeResend += 1 } else { receiptAfterResend += 1 }
                            if let confirmed = report.confirmed { deviceDelays.append(confirmed - receipt) }
                        } else {
                            receiptNever += 1
                        }
                    }
                }
            }
            // Over every acknowledged report: first copies the plain watcher, and the benchmark's own
            // persistent session, never got.
            var acknowledged = 0, watcherMissed = 0, sessionMissed = 0
            var sessionExamples: [String] = []
            for (index, reports) in state.reports.enumerated() {
                for (tst, report) in reports where report.acknowledged != nil {
                    acknowledged += 1
                    if report.firstCopySeen == nil { watcherMissed += 1 }
                    if report.firstCopyInSession == nil {
                        sessionMissed += 1
                        if sessionExamples.count < 4 { sessionExamples.append("d\(index)@\(tst)") }
                    }
                }
            }
            func range(_ values: [Double]) -> String {
                guard !values.isEmpty else { return "-" }
                let sorted = values.sorted()
                return String(format: "%.1f/%.1f/%.1f s", sorted[0], sorted[sorted.count / 2], sorted[sorted.count - 1])
            }
            // Duplicates if every copy reached a subscriber once: each resend of a report whose
            // first copy was taken in, and each resend but the stored one otherwise; fewer means
            // copies that never arrived.
            let everyCopy = resendCopies
            let noFirstOfResendStored = resendCopies - resendStored
            let duplicateText = duplicates.map { "subscribers' duplicates \($0) (every copy arriving would make \(everyCopy); the first copies of the resend-stored never arriving, \(noFirstOfResendStored))" } ?? "subscribers' duplicates unread"
            return "\(resentReports) reports resent (\(resendCopies) copies), \(inViewBeforeResend) in a view before the resend; "
                + "(c) first copy in the history before the resend: \(takenBefore) (receipt published before the resend \(receiptBeforeResend), after it \(receiptAfterResend), never \(receiptNever); "
                + "behind an earlier resent report of the device \(behindEarlier); receipt after received_at min/median/max \(range(receiptDelays)); device read it after the watcher \(range(deviceDelays))); "
                + "(b) first copy taken in after the resend: \(lateFirst.count) (after its publish \(range(lateFirst))); "
                + "(a) the resend taken in first: \(resendStored) (the plain QoS 0 watcher had the first copy in \(resendStoredWatcherHadFirst), after \(range(watcherLatency))"
                + (session ? "; the benchmark's persistent session had it in \(resendStoredSessionHadFirst)" : "")
                + "; duplicates read \(range(waitedForFirst)) after the first copy's publish); "
                + "in no history \(notStored); \(duplicateText); "
                + "of all \(acknowledged) acknowledged reports the plain watcher never got the first copy of \(watcherMissed)"
                + (session ? ", the benchmark's persistent QoS 1 session \(sessionMissed)\(sessionExamples.isEmpty ? "" : " (" + sessionExamples.joined(separator: ", ") + ")")" : "")
                + (examples.isEmpty ? "" : "; e.g. " + examples.joined(separator: ", "))
        }
    }
}
