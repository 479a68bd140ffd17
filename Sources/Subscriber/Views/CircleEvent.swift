import Foundation

/// A membership change in a circle, published non-retained on `whereabouts/circles/<id>/events`.
///
/// JSON: `{"_type":"event","circle":"family","user":"alice","device":"phone","event":"online","tst":1700000000}`;
/// `arrived`/`departed` add `"place":"Home"`, `enter`/`leave` add `"region"`.
package struct CircleEvent: Sendable, Hashable, Codable {
    /// Always `"event"`.
    package var type: String = "event"
    /// The circle's id.
    package var circle: String
    /// The member's user name.
    package var user: String
    /// The member's device name.
    package var device: String
    /// What happened.
    package var event: Kind
    /// Epoch seconds at which the subscriber noticed it (for `enter`/`leave`: the device's `tst`).
    package var tst: Int
    /// For `enter`/`leave`: the region's name as the device reported it (its `desc`).
    package var region: String?
    /// For `arrived`/`departed`: the circle place's name.
    package var place: String?

    /// What happened to a member.
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The member was added to the circle (circles file loaded or reloaded).
        case joined
        /// The member was removed from the circle by a reload of the circles file.
        case left
        /// The member came online: a live fix or a presence `online` after offline, stale,
        /// stationary, overdue, gone or unknown.
        case online
        /// The member went offline: a last will or a presence `offline`.
        case offline
        /// Nothing was heard from the member for longer than the stale timeout (devices that promise
        /// nothing).
        case stale
        /// The member stopped moving: heartbeats keep its promise, no fix for the stale timeout.
        case stationary
        /// The member's promised next message did not come within the grace.
        case overdue
        /// Nothing was heard from the member for the gone timeout.
        case gone
        /// The device reported entering one of its own regions (an OwnTracks `transition`).
        case enter
        /// The device reported leaving one of its own regions (an OwnTracks `transition`).
        case leave
        /// The member arrived at one of the circle's places (`tst`: the first fix inside).
        case arrived
        /// The member left one of the circle's places (not `left`, which means leaving the circle).
        case departed
    }

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case circle, user, device, event, tst, region, place
    }

    /// Creates an event.
    package init(
        circle: String, user: String, device: String, event: Kind, tst: Int, region: String? = nil, place: String? = nil
    ) {
        self.place = place
        self.circle = circle
        self.user = user
        self.device = device
        self.event = event
        self.tst = tst
        self.region = region
    }
}
