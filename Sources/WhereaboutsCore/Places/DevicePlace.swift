import Foundation

/// A place the publisher watches on the device: a named disc, as a circle's `places:` entry in the
/// subscriber's circles file (docs/subscriber.md), or an OwnTracks waypoint received by
/// `setWaypoints`. Entering and leaving it sends OwnTracks `transition` messages and may switch
/// the reporting profile.
public struct DevicePlace: Sendable, Hashable, Codable {
    /// The name (OwnTracks `desc`): unique among the device's places, ignoring case.
    public var name: String
    /// Latitude of the centre, degrees.
    public var lat: Double
    /// Longitude of the centre, degrees.
    public var lon: Double
    /// Radius in metres.
    public var radius: Double
    /// Seconds the device must stay inside before it counts as entered; `nil` for the default.
    public var dwell: Double?
    /// The profile to switch to on entering, or `nil` to leave the profile alone.
    public var profile: MonitoringMode?
    /// The profile to switch to on leaving, or `nil` to leave the profile alone.
    public var profileOnLeave: MonitoringMode?
    /// The OwnTracks waypoint timestamp (`tst` of the waypoint, `wtst` of its transitions), which
    /// the apps use as the waypoint's identity.
    public var tst: Int
    /// The OwnTracks region id (`rid`, as the iOS app sends it); derived from name and `tst` when
    /// the waypoint came without one.
    public var rid: String
    /// Where the place came from.
    public var origin: Origin

    /// Where a place was defined.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// The `--places` file: fixed configuration, not removed by `clearWaypoints`.
        case file
        /// A `setWaypoints` command: stored in the state directory, removed by `clearWaypoints`.
        case command
    }

    /// Creates a place; `rid` defaults to ``DevicePlace/derivedRID(name:tst:)``.
    public init(
        name: String, lat: Double, lon: Double, radius: Double, dwell: Double? = nil,
        profile: MonitoringMode? = nil, profileOnLeave: MonitoringMode? = nil, tst: Int = 0, rid: String? = nil,
        origin: Origin = .file
    ) {
        self.name = name
        self.lat = lat
        self.lon = lon
        self.radius = radius
        self.dwell = dwell
        self.profile = profile
        self.profileOnLeave = profileOnLeave
        self.tst = tst
        self.rid = rid ?? Self.derivedRID(name: name, tst: tst)
        self.origin = origin
    }

    /// The centre as a coordinate.
    public var centre: Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// The key places are matched by: the name in lower case.
    public var key: String { name.lowercased() }

    /// Whether `other` covers the same ground with the same rules (name, centre, radius, dwell):
    /// a reload that keeps a place unchanged keeps whether the device is inside it.
    public func sameGeometry(as other: DevicePlace) -> Bool {
        key == other.key && lat == other.lat && lon == other.lon && radius == other.radius && dwell == other.dwell
    }

    /// A stable region id for a place that came without one: 8 hex digits of the FNV-1a hash of
    /// the lower-cased name and the timestamp, so the same waypoint always gets the same `rid`.
    public static func derivedRID(name: String, tst: Int) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in "\(name.lowercased())|\(tst)".utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return String(format: "%08x", hash)
    }

    /// The largest radius accepted, metres (as the subscriber's places).
    public static let maxRadius = 50_000.0
    /// The longest dwell accepted, seconds (one day).
    public static let maxDwell = 86_400.0
    /// The longest name accepted, characters.
    public static let maxNameLength = 64
}
