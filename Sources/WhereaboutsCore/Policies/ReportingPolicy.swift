/// Decides which accepted fixes are worth a message.
///
/// The publisher and the evaluator run the same policy values, fix by fix, so that what the
/// evaluator measures is what the publisher sends. A policy sees only fixes that passed the
/// rejection filters, in time order.
public protocol ReportingPolicy: Sendable {
    /// A short name for tables and logs, such as `bounded(50m)`.
    var name: String { get }

    /// Considers the next accepted fix and returns the report to send, or `nil` to stay silent.
    mutating func consider(_ fix: Fix) -> Report?

    /// Reports `fix` whatever the policy would have decided (a command asked for it), updating the
    /// policy's state as if it had chosen the report itself.
    mutating func forceReport(_ fix: Fix, trigger: Trigger) -> Report
}

/// A policy that promises a largest live error under the `predict` display model.
public protocol ErrorBoundedPolicy: ReportingPolicy {
    /// The promised bound in metres, checked at every accepted fix.
    var errorBound: Double { get }
}
