#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A flat east/north plane tangent to the Earth at an origin, for small-scale geometry
/// (velocities, extrapolation, distances to a line) within a few tens of kilometres.
///
/// Within 10 km of the origin the projected distance differs from the great-circle distance by
/// less than 0.1 %.
public struct LocalProjection: Sendable, Hashable {
    /// The point that maps to (0, 0).
    public let origin: Coordinate
    private let metresPerDegreeLatitude: Double
    private let metresPerDegreeLongitude: Double

    /// Creates a projection tangent at `origin`.
    public init(origin: Coordinate) {
        self.origin = origin
        let φ = origin.latitude * .pi / 180
        // The same sphere as `Geodesy.distance`, so projected and great-circle distances agree.
        metresPerDegreeLatitude = Geodesy.earthRadius * .pi / 180
        metresPerDegreeLongitude = metresPerDegreeLatitude * cos(φ)
    }

    /// The point's east and north offsets from the origin, in metres.
    public func project(_ point: Coordinate) -> (east: Double, north: Double) {
        var dλ = point.longitude - origin.longitude
        if dλ > 180 { dλ -= 360 } else if dλ < -180 { dλ += 360 }
        return (dλ * metresPerDegreeLongitude, (point.latitude - origin.latitude) * metresPerDegreeLatitude)
    }

    /// The coordinate at the given east and north offsets from the origin, in metres.
    public func unproject(east: Double, north: Double) -> Coordinate {
        var longitude = origin.longitude + east / metresPerDegreeLongitude
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return Coordinate(latitude: origin.latitude + north / metresPerDegreeLatitude, longitude: longitude)
    }
}
