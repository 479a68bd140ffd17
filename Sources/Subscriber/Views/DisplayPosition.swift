import Foundation

/// Where a dashboard draws a member: the predicted position at the view's `generatedAt`.
package struct DisplayPosition: Sendable, Hashable, Codable {
    /// Latitude in degrees.
    package var lat: Double
    /// Longitude in degrees.
    package var lon: Double
    /// Whether the position was moved on from the fix with its velocity (`ve`/`vn`).
    var extrapolated: Bool

    /// Creates a display position.
    package init(lat: Double, lon: Double, extrapolated: Bool) {
        self.lat = lat
        self.lon = lon
        self.extrapolated = extrapolated
    }
}
