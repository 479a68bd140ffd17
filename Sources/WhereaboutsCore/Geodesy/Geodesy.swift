#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Great-circle geometry on a spherical Earth: accurate to about 0.5 % for any distance, which is
/// far below GPS noise at the scales Whereabouts works with.
public enum Geodesy {
    /// The mean Earth radius in metres (IUGG R1).
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance in metres between two points (haversine formula).
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let φ1 = a.latitude * .pi / 180
        let φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// The initial bearing in degrees (0..<360, clockwise from true north) from `a` towards `b`.
    public static func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        let φ1 = a.latitude * .pi / 180
        let φ2 = b.latitude * .pi / 180
        let dλ = (b.longitude - a.longitude) * .pi / 180
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The point reached by travelling `distance` metres from `start` on the initial `bearing`.
    static func destination(from start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
        let δ = distance / earthRadius
        let θ = bearing * .pi / 180
        let φ1 = start.latitude * .pi / 180
        let λ1 = start.longitude * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        var longitude = λ2 * 180 / .pi
        longitude = (longitude + 540).truncatingRemainder(dividingBy: 360) - 180
        return Coordinate(latitude: φ2 * 180 / .pi, longitude: longitude)
    }
}
