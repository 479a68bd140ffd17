import ArgumentParser
import PolicyOptions
import Publisher
import WhereaboutsCore

extension WhereaboutsPub {
    /// The policies of both profiles and the rejection filters, from the policy flags shared with
    /// whereabouts-eval: `active` runs the one `--policy` given (bounded by default), `significant`
    /// runs the significant policy with `--significant-distance` and `--significant-interval`.
    func makePolicies() throws -> (profiles: ProfilePolicies, makeFilter: @Sendable () -> FixFilter) {
        _ = try policy.makeSinglePolicy(default: .bounded)  // checks exactly one policy and one epsilon
        let kind = try policy.kinds(default: [.bounded])[0]
        let epsilon = try policy.epsilons()[0]
        let settings = try policy.settings()
        let filter = try policy.filterSettings()
        let profiles = ProfilePolicies(
            active: { settings.makePolicy(kind, epsilon: epsilon) },
            significant: { settings.makePolicy(.significant) })
        return (profiles, { FixFilter(settings: filter) })
    }
}
