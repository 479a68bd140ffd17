/// A policy that promises a largest live error under the `predict` display model.
public protocol ErrorBoundedPolicy: ReportingPolicy {
    /// The promised bound in metres, checked at every accepted fix.
    var errorBound: Double { get }
}
