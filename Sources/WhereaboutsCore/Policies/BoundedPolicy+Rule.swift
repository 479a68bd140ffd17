#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BoundedPolicy {
    /// One of `bounded`'s rules, by the name `whereabouts-eval --without` and `--ablate` use: the
    /// policy can run without any of them, so that each rule's effect can be measured on data it
    /// was not chosen on (docs/policies.md, "Why each rule is there").
    public enum Rule: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        /// The last two fixes' velocity while the quadratic fit turns (`turnRate`, `turnSpeed`).
        case turn
        /// A shorter horizon `ms` while the quadratic fit brakes towards a stop.
        case braking
        /// A moving report sent from `lag` × ε behind the fix.
        case lag
        /// Follow the leader among velocity estimators; without it, the last two fixes' velocity
        /// (dead reckoning's) in the sent frame.
        case experts
        /// The receiver's measured velocity as the first estimator.
        case measured
        /// Least squares over 8 s as an estimator.
        case window8
        /// Hold (no velocity) as an estimator.
        case hold
        /// The turning estimator: the last two fixes' velocity turning at the recent rate, sent
        /// with the wire's `tr` while its shadow leads.
        case turning
        /// Turning takes the lead only when its shadow needed fewer reports than the best straight
        /// estimator's by more than the square root of that one's count (and keeps it while it
        /// needs fewer); without it, turning leads whenever it needs fewer.
        case turnLead = "turn-lead"
        /// The receiver's estimate holds below `parkedSpeed` (0.5 m/s).
        case parked

        /// Rules sort in the order they are declared here (so a policy's name lists the rules
        /// it goes without in one order, whatever order they were given in).
        public static func < (lhs: Rule, rhs: Rule) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }

        /// Reads a comma-separated list of rule names such as `braking,turn`.
        public static func parseList(_ text: String) throws(PolicySettingsError) -> Set<Rule> {
            var rules: Set<Rule> = []
            for item in text.split(separator: ",") {
                let name = item.trimmingSpaces().lowercased()
                guard let rule = Rule(rawValue: name) else { throw .unknownRule(name) }
                rules.insert(rule)
            }
            guard !rules.isEmpty else { throw .malformedList(parameter: "without", text: text) }
            return rules
        }
    }
}
