import Foundation

// STAND-IN for `Circles.CircleView` / `Circles.MemberView` (branch `sub`), written from the circle
// view contract in TEAM-NOTES so that the dashboard builds before `sub` is merged. Deleted when
// `sub` lands; nothing outside this folder may depend on fields the contract does not name.

/// One circle's view, as the subscriber publishes it (stand-in for `Circles.CircleView`).
public struct CircleView: Sendable, Hashable, Codable {
    /// The circle's id and display name.
    public struct Circle: Sendable, Hashable, Codable {
        /// Stable id used in topics and URLs.
        public var id: String
        /// Display name.
        public var name: String
    }

    /// Always `"view"`.
    public var type: String = "view"
    /// Which circle this is.
    public var circle: Circle
    /// Epoch seconds when the view was computed.
    public var generatedAt: Double
    /// The circle's members, in the circles file's order.
    public var members: [MemberView]

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case circle, generatedAt, members
    }

    /// Creates a view.
    public init(id: String, name: String, generatedAt: Double, members: [MemberView]) {
        self.circle = Circle(id: id, name: name)
        self.generatedAt = generatedAt
        self.members = members
    }
}

/// One member inside a circle view (stand-in for `Circles.MemberView`).
public struct MemberView: Sendable, Hashable, Codable {
    /// A point of the member's trail.
    public struct TrailPoint: Sendable, Hashable, Codable {
        /// Epoch seconds of the fix.
        public var tst: Int
        /// Latitude in degrees.
        public var lat: Double
        /// Longitude in degrees.
        public var lon: Double
    }

    /// The displayed position.
    public struct Display: Sendable, Hashable, Codable {
        /// Latitude in degrees.
        public var lat: Double
        /// Longitude in degrees.
        public var lon: Double
        /// Whether the position was moved on from the fix with its velocity.
        public var extrapolated: Bool
    }

    /// Member status.
    public enum Status: String, Sendable, Hashable, Codable, CaseIterable {
        case online, offline, stale, unknown
    }

    public var user: String
    public var device: String
    public var name: String
    public var color: String?
    public var tid: String?
    public var status: Status
    public var statusSince: Double?
    public var fix: LocationFix?
    public var age: Double?
    public var speed: Double?
    public var course: Double?
    public var display: Display?
    public var trail: [TrailPoint]

    /// The last fix, with the wire fields the contract names.
    public struct LocationFix: Sendable, Hashable, Codable {
        public var tst: Int
        public var lat: Double
        public var lon: Double
        public var acc: Int?
        public var alt: Int?
        public var vel: Int?
        public var cog: Int?
        public var t: String?
        public var batt: Int?
        public var ve: Double?
        public var vn: Double?
        public var ms: Int?
    }
}
