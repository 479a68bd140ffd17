import Foundation

/// Whether a member is reachable, as the subscriber judges it.
public enum MemberStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Heard from within the stale timeout and not announced offline.
    case online
    /// Announced offline: a last will (`lwt`) or a presence message with `"state":"offline"`.
    case offline
    /// Not announced offline, but nothing heard for longer than the stale timeout.
    case stale
    /// Never heard from since the subscriber started (no fix, no presence).
    case unknown
}
