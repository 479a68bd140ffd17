import Foundation

/// One point of a member's trail.
package struct TrailPoint: Sendable, Hashable, Codable {
    /// Epoch seconds of the fix.
    package var tst: Int
    /// Latitude in degrees.
    package var lat: Double
    /// Longitude in degrees.
    package var lon: Double

    /// Creates a trail point.
    package init(tst: Int, lat: Double, lon: Double) {
        self.tst = tst
        self.lat = lat
        self.lon = lon
    }
}
