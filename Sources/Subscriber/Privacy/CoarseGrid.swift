import Foundation
import WhereaboutsCore

/// Snaps positions to a grid of about `size` metres: latitude to multiples of `size` metres of
/// meridian, longitude to multiples of `size` metres along the snapped latitude's parallel. The
/// snapped point is the centre of the cell, so a member is never shown at a cell corner.
struct CoarseGrid: Sendable, Hashable {
    /// The cell size in metres.
    var size: Double

    /// The centre of the cell holding (`lat`, `lon`).
    func snap(lat: Double, lon: Double) -> (lat: Double, lon: Double) {
        let metresPerDegree = Geodesy.earthRadius * .pi / 180
        let latStep = size / metresPerDegree
        let snappedLat = min(90, max(-90, ((lat / latStep).rounded(.down) + 0.5) * latStep))
        let parallel = max(cos(snappedLat * .pi / 180), 1e-6) * metresPerDegree
        let lonStep = min(360, size / parallel)
        var snappedLon = ((lon / lonStep).rounded(.down) + 0.5) * lonStep
        if snappedLon > 180 { snappedLon -= 360 }
        return (snappedLat, snappedLon)
    }
}
