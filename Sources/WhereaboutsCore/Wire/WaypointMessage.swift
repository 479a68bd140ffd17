#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OwnTracks `waypoint`: a region as the apps exchange it (`setWaypoints`, the `waypoints`
/// reply). Fields as iOS's `regionAsJSON` writes them (`_type`, `desc`, `lat`, `lon`, `rad`,
/// `tst`, `rid`; owntracks/ios, OwnTracks/OwnTracks/OwnTracking.m) and Android's
/// `MessageWaypoint` reads them (owntracks/android, .../model/messages/MessageWaypoint.kt).
public struct WaypointMessage: Sendable, Hashable, Encodable {
    /// Always `"waypoint"`.
    public var type: String = "waypoint"
    /// The name.
    public var desc: String
    /// Latitude of the centre, degrees.
    public var lat: Double
    /// Longitude of the centre, degrees.
    public var lon: Double
    /// Radius in whole metres.
    var rad: Int
    /// The waypoint's timestamp, its identity.
    public var tst: Int
    /// The region id.
    public var rid: String?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case desc, lat, lon, rad, tst, rid
    }

    /// The waypoint for `place`.
    public init(_ place: Place) {
        desc = place.name
        lat = LocationMessage.roundCoordinate(place.lat)
        lon = LocationMessage.roundCoordinate(place.lon)
        rad = Int(place.radius.rounded())
        tst = place.tst
        rid = place.rid
    }
}

/// The `waypoints` reply: `{"_type":"waypoints","waypoints":[…]}`, published on
/// `<base>/waypoints`, not retained, as iOS answers the `waypoints` command
/// (`waypointsToDictionaryInMOC`, owntracks/ios, OwnTracks/OwnTracks/Settings.m) and Android
/// names the topic (`pubTopicWaypoints`).
public struct WaypointsMessage: Sendable, Hashable, Encodable {
    /// Always `"waypoints"`.
    public var type: String = "waypoints"
    /// The device's places.
    public var waypoints: [WaypointMessage]

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case waypoints
    }

    /// The reply listing `places`.
    public init(places: [Place]) {
        waypoints = places.map(WaypointMessage.init)
    }
}
