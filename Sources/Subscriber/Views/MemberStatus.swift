import Foundation

/// Whether a member is reachable, as the subscriber judges it (docs/subscriber.md, "Status").
package enum MemberStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Moving or fresh: a live fix (or coming online) within the stale timeout, and not
    /// announced offline.
    case online
    /// Alive but not moving: the device promised its next message (`due`) and keeps the promise
    /// with heartbeats, but sent no fix for longer than the stale timeout.
    case stationary
    /// The device's promised next message (`due`) did not come within the grace after it.
    case overdue
    /// Announced offline: a last will (`lwt`) or a presence message with `"state":"offline"`.
    case offline
    /// A device that promises nothing (the OwnTracks apps): not announced offline, but nothing
    /// heard for longer than the stale timeout.
    case stale
    /// Nothing heard for the gone timeout (30 days by default): hidden from the map, still listed.
    case gone
    /// Never heard from since the subscriber started (no fix, no presence).
    case unknown
}
