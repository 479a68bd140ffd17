import Foundation

/// One member of a circle as a dashboard shows it: who, where, how fresh, and where they were.
package struct MemberView: Sendable, Hashable, Codable {
    /// The member's user name (the second level of `owntracks/<user>/<device>`).
    package var user: String
    /// The member's device name (the third level of `owntracks/<user>/<device>`).
    package var device: String
    /// The display name from the circles file.
    package var name: String
    /// The colour from the circles file (`#rrggbb`), if one is configured.
    package var color: String?
    /// The two-character tracker id of the last fix, if any.
    package var tid: String?
    /// Whether the member is online, offline, stale, or has never been heard from.
    package var status: MemberStatus
    /// Epoch seconds since which `status` holds, when known.
    var statusSince: Int?
    /// Epoch seconds by which the device promised its next message (`due`), or `nil` when it
    /// promises nothing (the OwnTracks apps).
    package var due: Int?
    /// The member's current (newest) fix, or `nil` when no fix has arrived yet.
    package var fix: FixView?
    /// Seconds from the fix's `tst` to the view's `generatedAt`, or `nil` without a fix.
    package var age: Double?
    /// Speed in m/s: from `ve`/`vn` when the fix carries them, else from `vel`; `nil` if unknown.
    package var speed: Double?
    /// Course over ground in degrees clockwise from north: from `cog`, else from `ve`/`vn`.
    package var course: Double?
    /// Where a dashboard draws the member at `generatedAt`: `LocationMessage.displayedPosition(at:)`.
    package var display: DisplayPosition?
    /// The member's recent fixes, oldest first, the current one included.
    package var trail: [TrailPoint]
    /// The device's own regions it last reported being in (OwnTracks `inregions` and
    /// `transition`s), or `nil` when it never said.
    package var inregions: [String]?
    /// The name from the member's OwnTracks `card`, if one arrived.
    package var cardName: String?
    /// The tag of the face image from the member's card: the dashboard serves the image at
    /// `/api/circles/<id>/members/<user>/<device>/face` (the tag is its ETag), never inline.
    package var face: String?
    /// What this circle's audience may see of the member (its `privacy`, or less if the member
    /// shares less): `exact`, `coarse`, `place` (no position: `place` or away) or `hidden`.
    package var privacy: PrivacyLevel = .exact
    /// The circle place the member is at (``Place/name``), or `nil` when at none.
    package var place: String?
    /// Epoch seconds since which the member is at ``place`` (their first fix inside it).
    var placeSince: Int?
    /// How many reports the member's publisher held unconfirmed by receipts when it sent its
    /// newest one (docs/receipts.md); `nil` when its publisher does not say (not Whereabouts',
    /// or no receipt-speaking subscriber).
    package var unconfirmed: Int?
    /// Epoch seconds when the oldest of those reports was committed on the device.
    package var unconfirmedSince: Int?

    /// Creates a member view.
    package init(
        user: String, device: String, name: String, color: String? = nil, tid: String? = nil,
        status: MemberStatus, statusSince: Int? = nil, fix: FixView? = nil, age: Double? = nil,
        speed: Double? = nil, course: Double? = nil, display: DisplayPosition? = nil,
        trail: [TrailPoint] = []
    ) {
        self.user = user
        self.device = device
        self.name = name
        self.color = color
        self.tid = tid
        self.status = status
        self.statusSince = statusSince
        self.fix = fix
        self.age = age
        self.speed = speed
        self.course = course
        self.display = display
        self.trail = trail
    }

    /// Encodes every field; optional ones as `null` when absent, so a browser can rely on the keys.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(device, forKey: .device)
        try container.encode(name, forKey: .name)
        try container.encode(color, forKey: .color)
        try container.encode(tid, forKey: .tid)
        try container.encode(status, forKey: .status)
        try container.encode(statusSince, forKey: .statusSince)
        try container.encode(due, forKey: .due)
        try container.encode(fix, forKey: .fix)
        try container.encode(age, forKey: .age)
        try container.encode(speed, forKey: .speed)
        try container.encode(course, forKey: .course)
        try container.encode(display, forKey: .display)
        try container.encode(trail, forKey: .trail)
        try container.encode(inregions, forKey: .inregions)
        try container.encode(cardName, forKey: .cardName)
        try container.encode(face, forKey: .face)
        try container.encode(place, forKey: .place)
        try container.encode(placeSince, forKey: .placeSince)
        try container.encode(privacy, forKey: .privacy)
        try container.encode(unconfirmed, forKey: .unconfirmed)
        try container.encode(unconfirmedSince, forKey: .unconfirmedSince)
    }
}
