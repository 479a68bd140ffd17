#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A place: a named disc on the map that people arrive at and leave, for the publisher (the
/// `--places` file and the OwnTracks waypoints set by `setWaypoints`) and the subscriber (a
/// circle's `places:` in the circles file) alike. ``PlaceTracker`` decides when a device is inside.
///
/// Every attribute a place has is declared here, once: a stored property and its entry in
/// ``attributes`` (key, values, which places may have it), from which one validator
/// (`WhereaboutsYAML`'s `PlaceYAML`) reads both YAML files and the JSON below is written and read.
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
        self.waypoint = waypoint
        deriveMissingRID()
    }

    /// Every attribute of a place, in the order the files list them: what the YAML files accept
    /// (a circle's places the ``PlaceAttribute/Scope/everyPlace`` ones, the publisher's all) and
    /// what the JSON holds. A new attribute is a stored property above and one entry here.
    package static let attributes: [PlaceAttribute] = [
        PlaceAttribute("name", required: true, .name(maxLength: maxNameLength, get: { $0.name }, set: { $0.name = $1 })),
        PlaceAttribute("lat", required: true, .number(range: -90...90, unit: "degrees", get: { $0.lat }, set: { $0.lat = $1 })),
        PlaceAttribute("lon", required: true, .number(range: -180...180, unit: "degrees", get: { $0.lon }, set: { $0.lon = $1 })),
        PlaceAttribute("radius", required: true, .number(range: 1...maxRadius, unit: "metres", get: { $0.radius }, set: { $0.radius = $1 })),
        PlaceAttribute("dwell", .number(range: 0...maxDwell, unit: "seconds", get: { $0.dwell }, set: { $0.dwell = $1 })),
        PlaceAttribute("profile", scope: .devicePlace, .profile(get: { $0.profile }, set: { $0.profile = $1 })),
        PlaceAttribute("profileOnLeave", scope: .devicePlace, .profile(get: { $0.profileOnLeave }, set: { $0.profileOnLeave = $1 })),
        PlaceAttribute(
            "tst", scope: .devicePlace,
            .wholeNumber(range: 0...99_999_999_999, unit: "epoch seconds", get: { $0.waypoint?.tst }, set: { $0.waypoint?.tst = $1 })),
    ]

    /// Gives a waypoint without a region id the ``derivedRID(name:tst:)`` of its name and `tst`
    /// (after its attributes are set, as a file reader sets them one by one).
    package mutating func deriveMissingRID() {
        if var identity = waypoint, identity.rid == nil {
            identity.rid = Self.derivedRID(name: name, tst: identity.tst)
            waypoint = identity
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
    func sameGeometry(as other: Place) -> Bool {
        key == other.key && lat == other.lat && lon == other.lon && radius == other.radius && dwell == other.dwell
    }

    /// A stable region id for a place that came without one: 8 hex digits of the FNV-1a hash of
    /// the lower-cased name and the timestamp, so the same waypoint always gets the same `rid`.
    static func derivedRID(name: String, tst: Int) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(name.lowercased())|\(tst)".utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hex8(hash)
    }

    /// The largest radius accepted, metres.
    package static let maxRadius = 50_000.0
    /// The longest dwell accepted, seconds (one day).
    package static let maxDwell = 86_400.0
    /// The longest name accepted, characters.
    package static let maxNameLength = 64
}

/// JSON: the keys of ``Place/attributes`` that are set (`name`, `lat`, `lon`, `radius` and, when
/// set, `dwell`, `profile`, `profileOnLeave`); a waypoint adds `tst`, `rid` and `origin`. A
/// circle's place is thus the five keys of the circle view's `places` (README, "Circle views"); a
/// device's place is the publisher's stored waypoint (`places-<user>-<device>.json`).
extension Place: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes a place; it is a waypoint when `origin` is present.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(name: "", lat: 0, lon: 0, radius: 0)
        if let origin = try container.decodeIfPresent(Origin.self, forKey: Key("origin")) {
            waypoint = Waypoint(tst: 0, rid: try container.decodeIfPresent(String.self, forKey: Key("rid")), origin: origin)
        }
        for attribute in Self.attributes {
            let key = Key(attribute.key)
            guard attribute.isRequired || container.contains(key) else { continue }
            switch attribute.value {
            case .name(_, _, let set): set(&self, try container.decode(String.self, forKey: key))
            case .number(_, _, _, let set): set(&self, try container.decode(Double.self, forKey: key))
            case .wholeNumber(_, _, _, let set): set(&self, try container.decode(Int.self, forKey: key))
            case .profile(_, let set): set(&self, try container.decode(MonitoringMode.self, forKey: key))
            }
        }
        deriveMissingRID()
    }

    /// Encodes the keys the type's summary lists.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for attribute in Self.attributes {
            let key = Key(attribute.key)
            switch attribute.value {
            case .name(_, let get, _): try container.encode(get(self), forKey: key)
            case .number(_, _, let get, _): try container.encodeIfPresent(get(self), forKey: key)
            case .wholeNumber(_, _, let get, _): try container.encodeIfPresent(get(self), forKey: key)
            case .profile(let get, _): try container.encodeIfPresent(get(self), forKey: key)
            }
        }
        if let waypoint {
            try container.encode(rid, forKey: Key("rid"))
            try container.encode(waypoint.origin, forKey: Key("origin"))
        }
    }
}
