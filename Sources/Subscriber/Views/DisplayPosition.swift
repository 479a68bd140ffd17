import Foundation

/// Where a dashboard draws a member: the predicted position at the view's `generatedAt`.
public struct DisplayPosition: Sendable, Hashable, Codable {
    /// Latitude in degrees.
    public var lat: Double
    /// Longitude in degrees.
    public var lon: Double
    /// Whether the position was moved on from the fix with its velocity (`ve`/`vn`).
    public var extrapolated: Bool

    /// Creates a display position.
    public init(lat: Double, lon: Double, extrapolated: Bool) {
        self.lat = lat
        self.lon = lon
        self.extrapolated = extrapolated
    }
}
