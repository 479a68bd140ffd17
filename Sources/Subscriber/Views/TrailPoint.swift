import Foundation

/// One point of a member's trail.
public struct TrailPoint: Sendable, Hashable, Codable {
    /// Epoch seconds of the fix.
    public var tst: Int
    /// Latitude in degrees.
    public var lat: Double
    /// Longitude in degrees.
    public var lon: Double

    /// Creates a trail point.
    public init(tst: Int, lat: Double, lon: Double) {
        self.tst = tst
        self.lat = lat
        self.lon = lon
    }
}
