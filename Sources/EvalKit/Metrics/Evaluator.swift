import Foundation
import WhereaboutsCore

/// Replays an accepted track through a reporting policy and measures it as SPEC §5 defines.
///
/// At each fix `k`, dashboards know the messages of the reports made at fixes `0...k` (a report
/// made at fix `k` is known at `t_k`); `hold` shows the last one's position, `predict` its
/// ``LocationMessage/displayedPosition(at:)``. Everything is O(n) in the track length but for the
/// sorts behind the percentiles.
package struct Evaluator: Sendable {
    /// How reports are sized on the wire.
    package var wire: WireCost
    /// How radio wake-ups are counted and priced.
    package var radio: RadioEnergy
    /// The publisher's heartbeat while nothing else is sent, counted as messages and wake-ups;
    /// `nil` (the default here) counts reports only.
    package var heartbeat: HeartbeatModel? = nil

    /// Creates an evaluator; the defaults are documented on ``WireCost`` and ``RadioEnergy``.
    package init(wire: WireCost = WireCost(), radio: RadioEnergy = RadioEnergy()) {
        self.wire = wire
        self.radio = radio
    }

    /// Runs `policy` (from its current state) over `track` and returns each report with the index
    /// of the fix it reported.
    package static func reports<P: ReportingPolicy>(of policy: inout P, on track: [Fix]) -> [(index: Int, report: Report)] {
        var reports: [(index: Int, report: Report)] = []
        for (index, fix) in track.enumerated() {
            if let report = policy.consider(fix) { reports.append((index, report)) }
        }
        return reports
    }

    /// Runs a fresh `policy` over the accepted `track` and measures it.
    package func evaluate(_ policy: any ReportingPolicy, on track: [Fix]) -> PolicyRun {
        var policy = policy
        var made: [(index: Int, report: Report)] = []
        var choices: [BoundedPolicy.Choice] = []
        if var bounded = policy as? BoundedPolicy {
            // Keep what shaped each report, for `--reports`.
            for (index, fix) in track.enumerated() {
                guard let report = bounded.consider(fix) else { continue }
                made.append((index, report))
                choices.append(bounded.lastChoice)
            }
            policy = bounded
        } else {
            made = Self.reports(of: &policy, on: track)
        }
        let reports = made.indices.map { k in
            EvaluatedReport(index: made[k].index, report: made[k].report, message: wire.message(for: made[k].report),
                            choice: choices.isEmpty ? nil : choices[k])
        }
        return measure(policy: policy.name, errorBound: (policy as? any ErrorBoundedPolicy)?.errorBound, reports: reports, on: track)
    }

    /// Measures a given list of reports (indices ascending) on `track`; `errorBound` is the
    /// policy's promised bound, if any, carried along for tables and plots.
    package func measure(policy: String, errorBound: Double? = nil, reports: [EvaluatedReport], on track: [Fix]) -> PolicyRun {
        var holdErrors: [Double] = []
        var predictErrors: [Double] = []
        var trackError = 0.0
        holdErrors.reserveCapacity(track.count)
        predictErrors.reserveCapacity(track.count)
        var next = 0
        for (k, fix) in track.enumerated() {
            while next < reports.count, reports[next].index <= k { next += 1 }
            let point = fix.coordinate
            guard next > 0 else {
                // No report yet: dashboards show nothing, which counts as no error (the first
                // fix is always reported by every shipped policy).
                holdErrors.append(0)
                predictErrors.append(0)
                continue
            }
            let message = reports[next - 1].message
            holdErrors.append(Geodesy.distance(message.coordinate, point))
            predictErrors.append(Geodesy.distance(message.displayedPosition(at: fix.time), point))
            trackError = max(trackError, Geodesy.distance(trail(at: fix, before: reports[next - 1], after: next < reports.count ? reports[next] : nil, track: track), point))
        }

        var bytes = 0
        var wakeUps = 0
        var triggers: [String: Int] = [:]
        var previousTime: Date?
        // Heartbeats go out between reports; both wake the radio the same way.
        let beats = heartbeat.map { model in
            model.heartbeats(from: track.first?.time ?? .distantPast, to: track.last?.time ?? .distantPast,
                             sent: reports.map(\.report.fix.time))
        } ?? []
        var nextBeat = 0
        func wake(at time: Date) {
            if radio.wakesUp(afterGap: previousTime.map { time.timeIntervalSince($0) }) { wakeUps += 1 }
            previousTime = time
        }
        for report in reports {
            let time = report.report.fix.time
            while nextBeat < beats.count, beats[nextBeat] < time {
                wake(at: beats[nextBeat])
                nextBeat += 1
            }
            bytes += wire.packetSize(payloadSize: wire.payloadSize(of: report.message))
            wake(at: time)
            triggers[report.report.trigger.rawValue, default: 0] += 1
        }
        for beat in beats[nextBeat...] { wake(at: beat) }
        bytes += beats.count * (heartbeat?.packetSize ?? 0)
        let hours = track.count > 1 ? track[track.count - 1].time.timeIntervalSince(track[0].time) / 3600 : 0
        let evaluation = PolicyEvaluation(
            policy: policy,
            errorBound: errorBound,
            fixes: track.count,
            reports: reports.count,
            reportsPerHour: hours > 0 ? Double(reports.count) / hours : 0,
            holdError: ErrorSummary(errors: holdErrors),
            predictError: ErrorSummary(errors: predictErrors),
            maxTrackError: trackError,
            bytes: bytes,
            wakeUps: wakeUps,
            energy: Double(wakeUps) * radio.energyPerWakeUp,
            triggers: triggers,
            heartbeats: beats.count
        )
        return PolicyRun(evaluation: evaluation, reports: reports, predictErrors: predictErrors)
    }

    /// What a stored trail shows at `fix`'s time: the straight line between the reports around it,
    /// or the last report's position after the last report.
    private func trail(at fix: Fix, before: EvaluatedReport, after: EvaluatedReport?, track: [Fix]) -> Coordinate {
        let start = before.message.coordinate
        guard let after else { return start }
        let t0 = track[before.index].time.timeIntervalSince1970
        let t1 = track[after.index].time.timeIntervalSince1970
        guard t1 > t0 else { return start }
        let fraction = (fix.time.timeIntervalSince1970 - t0) / (t1 - t0)
        let end = after.message.coordinate
        return Coordinate(
            latitude: start.latitude + (end.latitude - start.latitude) * fraction,
            longitude: start.longitude + (end.longitude - start.longitude) * fraction
        )
    }
}
