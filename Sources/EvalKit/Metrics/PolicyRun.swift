import Foundation
import WhereaboutsCore

/// Everything an evaluation run produced: the measures, every report and the live error at every
/// fix under the `predict` model (for plots).
package struct PolicyRun: Sendable {
    /// The measures.
    package var evaluation: PolicyEvaluation
    /// Every report, in order.
    package var reports: [EvaluatedReport]
    /// The `predict` live error at each accepted fix, in metres.
    package var predictErrors: [Double]
}
