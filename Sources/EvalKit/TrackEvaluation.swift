import Foundation
import WhereaboutsCore

/// One track run through the rejection filters and then through every chosen policy.
public struct TrackEvaluation: Sendable {
    /// The track's name (its file name).
    public var name: String
    /// Fixes the source read.
    public var readFixes: Int
    /// Input the source skipped while reading, by reason (its own names).
    public var sourceRejections: [String: Int]
    /// Fixes the rejection filters turned away, by reason.
    public var filterRejections: Rejections
    /// The accepted track every policy saw.
    public var track: [Fix]
    /// One run per policy, in the order given.
    public var runs: [PolicyRun]

    /// Filters `fixes` (replay as fast as possible: "now" is each fix's own time, so nothing is too
    /// old) and evaluates each of `policies` on what was accepted. `progress` is called after each
    /// policy with the number done and the total.
    public static func evaluate(
        name: String,
        fixes: [Fix],
        sourceRejections: [String: Int] = [:],
        filter settings: FixFilter.Settings = FixFilter.Settings(),
        policies: [any ReportingPolicy],
        evaluator: Evaluator = Evaluator(),
        progress: (Int, Int) -> Void = { _, _ in }
    ) -> TrackEvaluation {
        var filter = FixFilter(settings: settings)
        let track = fixes.filter { filter.accept($0, now: $0.time) }
        var runs: [PolicyRun] = []
        for policy in policies {
            runs.append(evaluator.evaluate(policy, on: track))
            progress(runs.count, policies.count)
        }
        return TrackEvaluation(
            name: name, readFixes: fixes.count, sourceRejections: sourceRejections,
            filterRejections: filter.rejections, track: track, runs: runs
        )
    }

    /// The track's duration in seconds, from the first to the last accepted fix.
    public var duration: Double {
        guard let first = track.first, let last = track.last else { return 0 }
        return last.time.timeIntervalSince(first.time)
    }
}
