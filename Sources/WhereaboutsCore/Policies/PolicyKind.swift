#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The reporting policies Whereabouts knows, by the names the command lines use.
public enum PolicyKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// ``SeedPolicy``: the source articles' adaptive policy.
    case seed
    /// ``IntervalPolicy``: every N seconds.
    case interval
    /// ``DistancePolicy``: every N metres.
    case distance
    /// ``SignificantPolicy``: the frugal significant-change profile.
    case significant
    /// ``DeadReckoningPolicy``: plain dead reckoning, the baseline for `bounded`.
    case deadReckoning = "dead-reckoning"
    /// ``BoundedPolicy``: Whereabouts' own error-bounded policy.
    case bounded
    /// ``AppDefaultPolicy/ownTracksMove``: the OwnTracks app's move mode, for comparison.
    case ownTracksMove = "owntracks-move"
    /// ``AppDefaultPolicy/traccarClient``: the Traccar Client's defaults, for comparison.
    case traccar

    /// The six policies `whereabouts-eval` runs by default (the two app defaults only on request).
    public static let standard: [PolicyKind] = [.seed, .interval, .distance, .significant, .deadReckoning, .bounded]

    /// Reads a comma-separated list of policy names such as `seed,bounded`.
    public static func parseList(_ text: String) throws(PolicySettingsError) -> [PolicyKind] {
        var kinds: [PolicyKind] = []
        for item in text.split(separator: ",") {
            let name = item.trimmingSpaces().lowercased()
            guard let kind = PolicyKind(rawValue: name) else { throw .unknownPolicy(name) }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        guard !kinds.isEmpty else { throw .malformedList(parameter: "policy", text: text) }
        return kinds
    }

    /// Whether the policy bounds its error by an `epsilon` (and so runs once per `--epsilon`).
    package var usesEpsilon: Bool { self == .bounded || self == .deadReckoning }
}

