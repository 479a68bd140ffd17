#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every reporting policy's parameters in one value: what `whereabouts-pub` and
/// `whereabouts-eval` build from the same flags, and what turns a policy name into a policy.
public struct PolicySettings: Sendable, Hashable, Codable {
    /// Parameters of ``SeedPolicy``.
    public var seed: SeedPolicy.Parameters
    /// Parameters of ``IntervalPolicy``.
    public var interval: IntervalPolicy.Parameters
    /// Parameters of ``DistancePolicy``.
    public var distance: DistancePolicy.Parameters
    /// Parameters of ``SignificantPolicy``.
    public var significant: SignificantPolicy.Parameters
    /// Parameters of ``DeadReckoningPolicy``; its `epsilon` and `maxSilence` follow `bounded`'s
    /// when built through ``makePolicy(_:epsilon:)``.
    public var deadReckoning: DeadReckoningPolicy.Parameters
    /// Parameters of ``BoundedPolicy``.
    public var bounded: BoundedPolicy.Parameters

    /// Creates settings; every policy gets its documented defaults unless given.
    public init(
        seed: SeedPolicy.Parameters = .init(),
        interval: IntervalPolicy.Parameters = .init(),
        distance: DistancePolicy.Parameters = .init(),
        significant: SignificantPolicy.Parameters = .init(),
        deadReckoning: DeadReckoningPolicy.Parameters = .init(),
        bounded: BoundedPolicy.Parameters = .init()
    ) {
        self.seed = seed
        self.interval = interval
        self.distance = distance
        self.significant = significant
        self.deadReckoning = deadReckoning
        self.bounded = bounded
    }

    /// Checks every policy's parameters; the error names the offending flag.
    public func validate() throws(PolicySettingsError) {
        try seed.validate()
        try interval.validate()
        try distance.validate()
        try significant.validate()
        try deadReckoning.validate()
        try bounded.validate()
    }

    /// A fresh policy of `kind` with these parameters; `epsilon` (metres), when given, overrides
    /// the epsilon of `bounded` and `dead-reckoning`.
    public func makePolicy(_ kind: PolicyKind, epsilon: Double? = nil) -> any ReportingPolicy {
        switch kind {
        case .seed: return SeedPolicy(parameters: seed)
        case .interval: return IntervalPolicy(parameters: interval)
        case .distance: return DistancePolicy(parameters: distance)
        case .significant: return SignificantPolicy(parameters: significant)
        case .deadReckoning:
            var parameters = deadReckoning
            if let epsilon { parameters.epsilon = epsilon }
            return DeadReckoningPolicy(parameters: parameters)
        case .bounded:
            var parameters = bounded
            if let epsilon { parameters.epsilon = epsilon }
            return BoundedPolicy(parameters: parameters)
        case .ownTracksMove: return AppDefaultPolicy(parameters: AppDefaultPolicy.ownTracksMove)
        case .traccar: return AppDefaultPolicy(parameters: AppDefaultPolicy.traccarClient)
        }
    }

    /// Fresh policies for each of `kinds`, in order, with the epsilon policies once per value of
    /// `epsilons` (or once with their own epsilon when `epsilons` is empty).
    public func makePolicies(_ kinds: [PolicyKind], epsilons: [Double] = []) -> [any ReportingPolicy] {
        kinds.flatMap { kind -> [any ReportingPolicy] in
            guard kind.usesEpsilon, !epsilons.isEmpty else { return [makePolicy(kind)] }
            return epsilons.map { makePolicy(kind, epsilon: $0) }
        }
    }

    /// Reads a comma-separated list of positive numbers such as `25,50,100` for `--parameter`.
    public static func parseNumbers(_ text: String, parameter: String) throws(PolicySettingsError) -> [Double] {
        var values: [Double] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Double(item.trimmingSpaces()) else {
                throw .malformedList(parameter: parameter, text: text)
            }
            try requirePositive(value, parameter)
            values.append(value)
        }
        return values
    }
}
