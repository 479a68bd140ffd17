import WhereaboutsCore

/// Makes the policy for each profile: `active` runs the configured policy, `significant` the
/// frugal significant-change policy.
///
/// A profile switch starts the new profile's policy afresh, so its first report after the switch
/// is the next accepted fix (carrying the new `m`).
package struct ProfilePolicies: Sendable {
    private let active: @Sendable () -> any ReportingPolicy
    private let significant: @Sendable () -> any ReportingPolicy

    /// Creates the factories.
    package init(
        active: @escaping @Sendable () -> any ReportingPolicy,
        significant: @escaping @Sendable () -> any ReportingPolicy
    ) {
        self.active = active
        self.significant = significant
    }

    /// A fresh policy for `mode`.
    package func makePolicy(for mode: MonitoringMode) -> any ReportingPolicy {
        switch mode {
        case .active: active()
        case .significant: significant()
        }
    }
}
