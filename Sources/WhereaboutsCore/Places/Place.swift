import Foundation

/// A place: a named disc on the map that people arrive at and leave, for the publisher (the
/// `--places` file and the OwnTracks waypoints set by `setWaypoints`) and the subscriber (a
/// circle's `places:` in the circles file) alike. ``PlaceTracker`` decides when a device is inside.
///
/// Every attribute a place has is declared here, and read from YAML by one validator
/// (`WhereaboutsYAML`'s `PlaceYAML`) for both files.
public struct Place: Sendable, Hashable {
    /// The name shown, and sent as OwnTracks `desc`: unique among its list (a circle's places,
    /// the device's places), ignoring case. A device's own OwnTracks region whose `desc` equals it
    /// (ignoring case) counts as this place.
    public var name: String
    /// Latitude of the centre, degrees.
    public var lat: Double
    /// Longitude of the centre, degrees.
    public var lon: Double
    /// Radius in metres.
    public var radius: Double
    /// Seconds inside before an arrival counts; `nil` for the rules' default
    /// (``PlaceRules/defaultDwell``).
    public var dwell: Double?
    /// The reporting profile the publisher switches to on entering, or `nil` to leave it alone.
    public var profile: MonitoringMode?
    /// The reporting profile the publisher switches to on leaving, or `nil` to leave it alone.
    public var profileOnLeave: MonitoringMode?
    /// The OwnTracks waypoint identity of a device's place; `nil` for a circle's place.
    public var waypoint: Waypoint?

    /// A device's place as an OwnTracks waypoint: the identity the apps know it by.
    public struct Waypoint: Sendable, Hashable {
        /// The waypoint timestamp (`tst` of the waypoint, `wtst` of its transitions), which the
        /// apps use as the waypoint's identity.
        public var tst: Int
        /// The region id (`rid`, as the iOS app sends it); ``Place/init(name:lat:lon:radius:dwell:profile:profileOnLeave:waypoint:)``
        /// derives one from the name and `tst` when it is `nil`.
        public var rid: String?
        /// Where the place came from.
        public var origin: Origin

        /// Creates a waypoint identity.
        public init(tst: Int = 0, rid: String? = nil, origin: Origin = .file) {
            self.tst = tst
            self.rid = rid
            self.origin = origin
        }
    }

    /// Where a device's place was defined.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// The `--places` file: fixed configuration, not removed by `clearWaypoints`.
        case file
        /// A `setWaypoints` command: stored in the state directory, removed by `clearWaypoints`.
        case command
    }

    /// Creates a place; a `waypoint` without a `rid` gets ``derivedRID(name:tst:)``.
    public init(
        name: String, lat: Double, lon: Double, radius: Double, dwell: Double? = nil,
        profile: MonitoringMode? = nil, profileOnLeave: MonitoringMode? = nil, waypoint: Waypoint? = nil
    ) {
        self.name = name
        self.lat = lat
        self.lon = lon
        self.radius = radius
        self.dwell = dwell
        self.profile = profile
        self.profileOnLeave = profileOnLeave
        self.waypoint = waypoint.map { identity in
            var identity = identity
            if identity.rid == nil { identity.rid = Self.derivedRID(name: name, tst: identity.tst) }
            return identity
        }
    }

    /// The centre as a coordinate.
    public var centre: Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// The key places are matched by: the name in lower case.
    public var key: String { name.lowercased() }

    /// The waypoint timestamp sent as `wtst`; 0 for a place that is no waypoint.
    public var tst: Int { waypoint?.tst ?? 0 }

    /// The region id sent as `rid`.
    public var rid: String { waypoint?.rid ?? Self.derivedRID(name: name, tst: tst) }

    /// Where a device's place came from; `nil` for a circle's place.
    public var origin: Origin? { waypoint?.origin }

    /// Whether `other` covers the same ground with the same rules (name ignoring case, centre,
    /// radius, dwell): a reload that keeps a place unchanged keeps whether someone is inside it.
    package func sameGeometry(as other: Place) -> Bool {
        key == other.key && lat == other.lat && lon == other.lon && radius == other.radius && dwell == other.dwell
    }

    /// A stable region id for a place that came without one: 8 hex digits of the FNV-1a hash of
    /// the lower-cased name and the timestamp, so the same waypoint always gets the same `rid`.
    package static func derivedRID(name: String, tst: Int) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(name.lowercased())|\(tst)".utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return String(format: "%08x", hash)
    }

    /// The largest radius accepted, metres.
    package static let maxRadius = 50_000.0
    /// The longest dwell accepted, seconds (one day).
    package static let maxDwell = 86_400.0
    /// The longest name accepted, characters.
    package static let maxNameLength = 64
}

/// JSON: `name`, `lat`, `lon`, `radius` and, when set, `dwell`, `profile` and `profileOnLeave`; a
/// waypoint adds `tst`, `rid` and `origin`. A circle's place is thus the five keys of the circle
/// view's `places` (README, "Circle views"); a device's place is the publisher's stored waypoint
/// (`places-<user>-<device>.json`).
extension Place: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, lat, lon, radius, dwell, profile, profileOnLeave, tst, rid, origin
    }

    /// Decodes a place; it is a waypoint when `origin` is present.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var waypoint: Waypoint?
        if let origin = try container.decodeIfPresent(Origin.self, forKey: .origin) {
            waypoint = Waypoint(
                tst: try container.decode(Int.self, forKey: .tst), rid: try container.decodeIfPresent(String.self, forKey: .rid),
                origin: origin)
        }
        self.init(
            name: try container.decode(String.self, forKey: .name),
            lat: try container.decode(Double.self, forKey: .lat),
            lon: try container.decode(Double.self, forKey: .lon),
            radius: try container.decode(Double.self, forKey: .radius),
            dwell: try container.decodeIfPresent(Double.self, forKey: .dwell),
            profile: try container.decodeIfPresent(MonitoringMode.self, forKey: .profile),
            profileOnLeave: try container.decodeIfPresent(MonitoringMode.self, forKey: .profileOnLeave),
            waypoint: waypoint)
    }

    /// Encodes the keys the type's summary lists.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(lat, forKey: .lat)
        try container.encode(lon, forKey: .lon)
        try container.encode(radius, forKey: .radius)
        try container.encodeIfPresent(dwell, forKey: .dwell)
        try container.encodeIfPresent(profile, forKey: .profile)
        try container.encodeIfPresent(profileOnLeave, forKey: .profileOnLeave)
        if let waypoint {
            try container.encode(waypoint.tst, forKey: .tst)
            try container.encode(rid, forKey: .rid)
            try container.encode(waypoint.origin, forKey: .origin)
        }
    }
}
