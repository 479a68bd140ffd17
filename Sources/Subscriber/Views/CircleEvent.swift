import Foundation

/// A membership change in a circle, published non-retained on `whereabouts/circles/<id>/events`.
///
/// JSON: `{"_type":"event","circle":"family","user":"alice","device":"phone","event":"online","tst":1700000000}`.
public struct CircleEvent: Sendable, Hashable, Codable {
    /// Always `"event"`.
    public var type: String = "event"
    /// The circle's id.
    public var circle: String
    /// The member's user name.
    public var user: String
    /// The member's device name.
    public var device: String
    /// What happened.
    public var event: Kind
    /// Epoch seconds at which the subscriber noticed it (for `enter`/`leave`: the device's `tst`).
    public var tst: Int
    /// For `enter`/`leave`: the region's name as the device reported it (its `desc`).
    public var region: String?

    /// What happened to a member.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The member was added to the circle (circles file loaded or reloaded).
        case joined
        /// The member was removed from the circle by a reload of the circles file.
        case left
        /// The member came online: a live fix or a presence `online` after offline, stale or unknown.
        case online
        /// The member went offline: a last will or a presence `offline`.
        case offline
        /// Nothing was heard from the member for longer than the stale timeout.
        case stale
        /// The device reported entering one of its own regions (an OwnTracks `transition`).
        case enter
        /// The device reported leaving one of its own regions (an OwnTracks `transition`).
        case leave
    }

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case circle, user, device, event, tst, region
    }

    /// Creates an event.
    public init(circle: String, user: String, device: String, event: Kind, tst: Int, region: String? = nil) {
        self.circle = circle
        self.user = user
        self.device = device
        self.event = event
        self.tst = tst
        self.region = region
    }
}
