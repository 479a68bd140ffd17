import Foundation

/// Chooses the velocity `bounded` sends: the candidate that explains the recent trajectory for
/// the longest time back.
///
/// The recent fixes are projected into the frame of the position being sent, with times relative
/// to the wire `tst`, exactly as a dashboard will extrapolate. The candidates are zero (hold) and
/// least-squares fits of a straight line through the sent position over windows of 4, 8, 16, 32,
/// 64 and 128 seconds. Each candidate is scored by how far back in time every fix stays within
/// `tolerance` metres of the line; the best score wins, zero on a tie (stationary), otherwise the
/// longer window (smoother). A device that kept to a line for the last minute is likely to keep
/// to it for a while; one that has been standing still keeps standing.
struct VelocityFit {
    static let windows: [Double] = [4, 8, 16, 32, 64, 128]

    struct Point {
        var tau: Double
        var east: Double
        var north: Double
    }

    /// The chosen velocity, or `nil` for hold.
    static func choose(history: FixHistory, origin: Coordinate, tst: Double, tolerance: Double, stationarySpeed: Double) -> Velocity? {
        let projection = LocalProjection(origin: origin)
        let longest = windows[windows.count - 1]
        var points: [Point] = []
        points.reserveCapacity(min(history.count, 256))
        for age in 0..<history.count {
            let entry = history[age]
            let tau = entry.time - tst
            if tau < -longest { break }
            let (east, north) = projection.project(Coordinate(latitude: entry.latitude, longitude: entry.longitude))
            points.append(Point(tau: tau, east: east, north: north))
        }
        var candidates: [Velocity] = []
        var sumTE = 0.0, sumTN = 0.0, sumTT = 0.0
        var window = 0
        for point in points {
            while window < windows.count, point.tau < -windows[window] {
                if sumTT > 0 { candidates.append(Velocity(east: sumTE / sumTT, north: sumTN / sumTT)) }
                window += 1
            }
            sumTE += point.tau * point.east
            sumTN += point.tau * point.north
            sumTT += point.tau * point.tau
        }
        if window < windows.count, sumTT > 0 { candidates.append(Velocity(east: sumTE / sumTT, north: sumTN / sumTT)) }

        var best: Velocity? = nil
        var bestSpan = span(of: .zero, points: points, tolerance: tolerance)
        for candidate in candidates where candidate.speed >= stationarySpeed {
            let candidateSpan = span(of: candidate, points: points, tolerance: tolerance)
            if candidateSpan > bestSpan || (candidateSpan == bestSpan && best != nil) {
                best = candidate
                bestSpan = candidateSpan
            }
        }
        return best
    }

    /// How many seconds back every point stays within `tolerance` of the line `velocity * tau`.
    static func span(of velocity: Velocity, points: [Point], tolerance: Double) -> Double {
        let limit = tolerance * tolerance
        var span = 0.0
        for point in points {
            let dx = point.east - velocity.east * point.tau
            let dy = point.north - velocity.north * point.tau
            if dx * dx + dy * dy > limit { break }
            span = -point.tau
        }
        return span
    }
}
