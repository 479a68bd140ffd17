import Foundation
import WhereaboutsCore

/// One track run through the rejection filters and then through every chosen policy, with the
/// offline optimum at each epsilon as the yardstick.
package struct TrackEvaluation: Sendable {
    /// The track's name (its file name).
    package var name: String
    /// Fixes the source read.
    package var readFixes: Int
    /// Input the source skipped while reading, by reason (its own names).
    package var sourceRejections: [String: Int]
    /// Fixes the rejection filters turned away, by reason.
    package var filterRejections: Rejections
    /// The accepted track every policy saw.
    package var track: [Fix]
    /// One run per policy, in the order given, then the optimum's runs when they were asked for
    /// as a policy; every evaluation carries its ratio to the optimum.
    package var runs: [PolicyRun]
    /// The offline optimum's run at each epsilon, in the order of the epsilons.
    package var optimumRuns: [PolicyRun]

    /// Filters `fixes` (replay as fast as possible: "now" is each fix's own time, so nothing is too
    /// old) and evaluates each of `policies` on what was accepted, and the offline optimum of
    /// dead reckoning with each of `optimum` (one per epsilon). A policy's ratio is to the optimum
    /// at its own error bound, or to the first optimum when it has none. With `listOptimum` the
    /// optimum's runs follow the policies' in ``runs``. `progress` is called after each run with
    /// the number done and the total.
    package static func evaluate(
        name: String,
        fixes: [Fix],
        sourceRejections: [String: Int] = [:],
        filter settings: FixFilter.Settings = FixFilter.Settings(),
        policies: [any ReportingPolicy],
        optimum: [DeadReckoningPolicy.Parameters] = [],
        listOptimum: Bool = false,
        evaluator: Evaluator = Evaluator(),
        progress: (Int, Int) -> Void = { _, _ in }
    ) -> TrackEvaluation {
        var filter = FixFilter(settings: settings)
        let track = fixes.filter { filter.accept($0, now: $0.time) }
        let total = policies.count + optimum.count
        var optimumRuns: [PolicyRun] = []
        for parameters in optimum {
            var run = evaluator.evaluateOptimum(parameters, on: track)
            run.evaluation.compare(toOptimum: run.evaluation.reports)
            optimumRuns.append(run)
            progress(optimumRuns.count, total)
        }
        var runs: [PolicyRun] = []
        for policy in policies {
            var run = evaluator.evaluate(policy, on: track)
            let bound = run.evaluation.errorBound
            if let reference = optimumRuns.first(where: { $0.evaluation.errorBound == bound }) ?? optimumRuns.first {
                run.evaluation.compare(toOptimum: reference.evaluation.reports)
            }
            runs.append(run)
            progress(optimumRuns.count + runs.count, total)
        }
        if listOptimum { runs += optimumRuns }
        return TrackEvaluation(
            name: name, readFixes: fixes.count, sourceRejections: sourceRejections,
            filterRejections: filter.rejections, track: track, runs: runs, optimumRuns: optimumRuns
        )
    }

    /// The track's duration in seconds, from the first to the last accepted fix.
    package var duration: Double {
        guard let first = track.first, let last = track.last else { return 0 }
        return last.time.timeIntervalSince(first.time)
    }
}
