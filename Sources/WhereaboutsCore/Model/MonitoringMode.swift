/// OwnTracks' monitoring mode (`m` field), which Whereabouts uses to name the reporting profile.
public enum MonitoringMode: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The precise active profile ("move" mode in OwnTracks).
    case active = 2
    /// The frugal significant-change profile.
    case significant = 1

    /// The profile's name, as flags, config files, places files, commands and logs spell it
    /// (`active`, `significant`).
    public var name: String {
        switch self {
        case .active: "active"
        case .significant: "significant"
        }
    }

    /// The mode called `name` (``name``), or `nil` for any other word.
    public init?(name: String) {
        guard let mode = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = mode
    }
}
