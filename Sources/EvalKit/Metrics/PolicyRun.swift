import Foundation
import WhereaboutsCore

/// Everything an evaluation run produced: the measures, every report and the live error at every
/// fix under the `predict` model (for plots).
public struct PolicyRun: Sendable {
    /// The measures.
    public var evaluation: PolicyEvaluation
    /// Every report, in order.
    public var reports: [EvaluatedReport]
    /// The `predict` live error at each accepted fix, in metres.
    public var predictErrors: [Double]
}
