#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A point on the WGS 84 ellipsoid, in degrees.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Latitude in degrees, positive north.
    public var latitude: Double
    /// Longitude in degrees, positive east.
    public var longitude: Double

    /// Creates a coordinate from degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether both values are finite and within -90...90 and -180...180.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

extension Fix {
    /// The fix's position.
    public var coordinate: Coordinate {
        Coordinate(latitude: latitude, longitude: longitude)
    }
}
