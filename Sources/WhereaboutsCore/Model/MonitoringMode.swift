/// OwnTracks' monitoring mode (`m` field), which Whereabouts uses to name the reporting profile.
public enum MonitoringMode: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The frugal significant-change profile.
    case significant = 1
    /// The precise active profile ("move" mode in OwnTracks).
    case active = 2
}
