import Foundation
import WhereaboutsCore

extension Evaluator {
    /// The name of the offline optimum's runs at `epsilon` metres, such as `optimum(50m)`.
    package static func optimumName(epsilon: Double) -> String {
        "optimum(\(formatted(epsilon))m)"
    }

    /// Measures the offline optimum (``OfflineOptimum``) of dead reckoning with `parameters` on
    /// the accepted `track`, like any policy's run.
    package func evaluateOptimum(_ parameters: DeadReckoningPolicy.Parameters, on track: [Fix]) -> PolicyRun {
        let made = OfflineOptimum.reports(
            on: track, epsilon: parameters.epsilon, maxSilence: parameters.maxSilence, maxSpeed: parameters.maxSpeed
        )
        let reports = made.map { EvaluatedReport(index: $0.index, report: $0.report, message: wire.message(for: $0.report)) }
        return measure(policy: Self.optimumName(epsilon: parameters.epsilon), errorBound: parameters.epsilon, reports: reports, on: track)
    }
}
