import Foundation

/// The OwnTracks `location` message the subscriber republishes for a circle member in the
/// circle's OwnTracks tree: only the fields the apps draw a friend from, after the circle's
/// privacy rule.
///
/// Shape: the OwnTracks booklet's `location` (`tid`, `tst`, `lat`, `lon`, `acc`, `alt`, `vel`,
/// `cog`, `batt`, `t`, `inregions`). The Android app files a friend under the message's topic
/// (`MessageBase.contactKey`), so one topic per member device is one friend.
struct FriendLocation: Sendable, Hashable, Encodable {
    var tid: String
    var tst: Int
    var lat: Double
    var lon: Double
    var acc: Int
    var alt: Int?
    var vel: Int?
    var cog: Int?
    var batt: Int?
    var t: String?
    /// The circle place the member is at, as a one-element list; absent when at none.
    var inregions: [String]?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case tid, tst, lat, lon, acc, alt, vel, cog, batt, t, inregions
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("location", forKey: .type)
        try container.encode(tid, forKey: .tid)
        try container.encode(tst, forKey: .tst)
        try container.encode(lat, forKey: .lat)
        try container.encode(lon, forKey: .lon)
        try container.encode(acc, forKey: .acc)
        try container.encodeIfPresent(alt, forKey: .alt)
        try container.encodeIfPresent(vel, forKey: .vel)
        try container.encodeIfPresent(cog, forKey: .cog)
        try container.encodeIfPresent(batt, forKey: .batt)
        try container.encodeIfPresent(t, forKey: .t)
        try container.encodeIfPresent(inregions, forKey: .inregions)
    }
}
