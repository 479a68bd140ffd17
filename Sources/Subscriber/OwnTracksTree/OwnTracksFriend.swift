import Foundation
import WhereaboutsCore

/// What a circle's OwnTracks tree says about one member: the retained `location` (or none) and
/// the retained `card`, built from the member's view *as the circle's audience sees it*, so the
/// tree never shows more than the circle's view does.
///
/// | level | location |
/// |---|---|
/// | `exact` | the fix with speed, course, altitude and battery |
/// | `coarse` | the fix snapped to the circle's grid, accuracy at least the grid, no speed or course |
/// | `place` | the circle place's centre with its radius as accuracy while at a place; none when away |
/// | `hidden` | none |
///
/// A `gone` member has no location (the apps drop the friend from the map) but keeps its card.
package struct OwnTracksFriend: Sendable, Hashable {
    /// The `location` to keep retained, or `nil` to clear it.
    var location: FriendLocation?
    /// The `card` to keep retained (always: the member stays listed by name).
    var card: CardMessage

    /// The friend for `member` of a circle with `places`. `face` is the member's face image
    /// (the card's base64 `face`), when the member sent one.
    init(_ member: MemberView, places: [Place], face: [UInt8]?) {
        let tid = member.tid ?? Self.defaultTrackerID(member.user)
        card = CardMessage(name: member.name, face: face.map { Data($0).base64EncodedString() }, tid: tid)
        location = Self.location(of: member, tid: tid, places: places)
    }

    private static func location(of member: MemberView, tid: String, places: [Place]) -> FriendLocation? {
        guard member.status != .gone else { return nil }
        let inregions = member.place.map { [$0] }
        switch member.privacy {
        case .hidden:
            return nil
        case .place:
            guard let name = member.place, let place = places.first(where: { $0.name == name }) else { return nil }
            return FriendLocation(
                tid: tid, tst: member.placeSince ?? member.statusSince ?? 0, lat: place.lat, lon: place.lon,
                acc: Int(place.radius.rounded(.up)), inregions: inregions)
        case .exact, .coarse:
            // The view was redacted before it got here: a coarse fix is already snapped and
            // carries no speed or course.
            guard let fix = member.fix else { return nil }
            return FriendLocation(
                tid: tid, tst: fix.tst, lat: fix.lat, lon: fix.lon, acc: fix.acc, alt: fix.alt, vel: fix.vel,
                cog: fix.cog, batt: fix.batt, t: fix.t, inregions: inregions)
        }
    }

    /// The apps' own default tracker id: the last two characters of the user name.
    package static func defaultTrackerID(_ user: String) -> String {
        String(user.suffix(2))
    }
}
