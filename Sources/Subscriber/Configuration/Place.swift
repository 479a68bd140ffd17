import WhereaboutsCore

/// A place of a circle (`places:` in the circles file): a named disc on the map. Members arrive
/// when they stay inside it for the dwell time and leave when they are clearly outside it
/// (``PlaceTracker`` has the rules).
public struct Place: Sendable, Hashable, Codable {
    /// The name shown and sent in events (`Home`); unique within its circle. A device's own
    /// OwnTracks region whose `desc` equals it (ignoring case) counts as this place.
    public var name: String
    /// Latitude of the centre, degrees.
    public var lat: Double
    /// Longitude of the centre, degrees.
    public var lon: Double
    /// Radius in metres.
    public var radius: Double
    /// Seconds a member must stay inside before they count as arrived; `nil` for the default
    /// (``PlaceRules/defaultDwell``, 60 s).
    public var dwell: Double?

    /// Creates a place.
    public init(name: String, lat: Double, lon: Double, radius: Double, dwell: Double? = nil) {
        self.name = name
        self.lat = lat
        self.lon = lon
        self.radius = radius
        self.dwell = dwell
    }

    /// The centre as a coordinate.
    var centre: Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// The largest radius the circles file accepts, metres.
    static let maxRadius = 50_000.0
    /// The longest dwell the circles file accepts, seconds (one day).
    static let maxDwell = 86_400.0
}
