import Foundation
import WhereaboutsCore

/// The OwnTracks `transition` message the subscriber republishes (not retained) on
/// `<tree>/<user>/<device>/event` when a member arrives at or departs from a circle place, so the
/// apps notify "Alice entered Home".
///
/// Shape: the OwnTracks booklet's `transition` (`wtst`, `lat`, `lon`, `tst`, `acc`, `tid`,
/// `event` `enter`/`leave`, `desc`, `t` `c` for a circular region). The position is the place's
/// centre and the accuracy its radius: a circle place is known to the whole circle, so the
/// message reveals nothing finer about the member than the event itself.
struct FriendTransition: Sendable, Hashable, Encodable {
    var tid: String
    var tst: Int
    var event: String
    var place: Place

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case tid, tst, wtst, lat, lon, acc, event, desc, t
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("transition", forKey: .type)
        try container.encode(tid, forKey: .tid)
        try container.encode(tst, forKey: .tst)
        try container.encode(0, forKey: .wtst)
        try container.encode(place.lat, forKey: .lat)
        try container.encode(place.lon, forKey: .lon)
        try container.encode(Int(place.radius.rounded(.up)), forKey: .acc)
        try container.encode(event, forKey: .event)
        try container.encode(place.name, forKey: .desc)
        try container.encode("c", forKey: .t)
    }
}
