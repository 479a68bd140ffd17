import Foundation

/// The straight line that follows a steady turn longest: what `bounded` sends while a device
/// circles (a glider in a thermal, a plane in a holding pattern, a car on a roundabout).
///
/// Dashboards extrapolate a straight line. Dead reckoning sends the tangent (the last two fixes'
/// chord) from the fix itself, which a circle of radius `R` leaves after `√(2Rε)` metres. When the
/// recent fixes turn steadily, the turn is assumed to go on at the same rate and speed, and the
/// report carries the chord of the arc ahead whose sagitta is `2kε` (``share`` `k`), shifted
/// outwards by half of it: the arc then stays within `kε` of the line from start to end, about
/// 2.8 times as long as the tangent does (the Chebyshev line of an arc). The sent position is off
/// the fix by that shift (`kε`), so the bound still holds at the fix itself; when the turn stops,
/// the next report comes sooner than dead reckoning's would.
///
/// A turn counts as steady when the last ``modelTurns`` turn rates (heading change between
/// consecutive segments, per second) agree with their mean within ``rateTolerance``, that mean is
/// at least ``minimumRate``, and every turn rate of the last ``persistence`` seconds has the same
/// sign and at least ``persistenceShare`` of the mean's size: a corner of a road lasts a few
/// seconds, a thermal minutes. All constants were chosen on half A of the corpus
/// (BENCHMARKS.md, "The turn chord").
enum TurnChord {
    /// The share `k` of epsilon that the arc may stray from the sent line: 0.25.
    static let share = 0.25
    /// The smallest turn rate (degrees per second) that counts as turning: 6.
    static let minimumRate = 6.0
    /// How far (as a share of the mean) each of the newest turn rates may be from their mean: 0.5.
    static let rateTolerance = 0.5
    /// How many of the newest turn rates make the model's rate: 3.
    static let modelTurns = 3
    /// How long (s) the turn must have gone on in the same direction: 8.
    static let persistence = 8.0
    /// The share of the mean rate every turn rate of the last ``persistence`` seconds must reach: 0.5.
    static let persistenceShare = 0.5
    /// The slowest speed (m/s) at which the turn model applies: 1.
    static let minimumSpeed = 1.0

    /// The line to send, as an offset of the sent position from the newest point and a velocity,
    /// or `nil` when the recent points do not turn steadily.
    ///
    /// - Parameters:
    ///   - points: The recent fixes newest first (``SentFrame/recentPoints(history:fix:within:)``).
    ///   - epsilon: The bound in metres.
    static func line(points: [SentFrame.Point], epsilon: Double) -> (east: Double, north: Double, velocity: Velocity)? {
        // Newest first: segment s runs from points[s + 1] to points[s]; rate r is the turn from
        // segment r + 1 to segment r, per second between their midpoints. The newest
        // ``modelTurns`` rates are checked first (most reports are not made while circling).
        guard points.count >= modelTurns + 2 else { return nil }
        var mean = 0.0
        for r in 0..<modelTurns {
            guard let rate = rate(r, points) else { return nil }
            mean += rate
        }
        mean /= Double(modelTurns)
        guard abs(mean) >= minimumRate * .pi / 180 else { return nil }
        let segments = min(points.count - 1, persistenceSegments(points))
        for r in 0..<(segments - 1) {
            guard let rate = rate(r, points), rate * mean > 0, abs(rate) >= persistenceShare * abs(mean) else { return nil }
            if r < modelTurns, abs(rate - mean) > rateTolerance * abs(mean) { return nil }
        }
        guard let newestHeading = heading(0, points) else { return nil }

        let dt = points[0].tau - points[1].tau
        let speed = (pow(points[0].east - points[1].east, 2) + pow(points[0].north - points[1].north, 2)).squareRoot() / dt
        guard speed >= minimumSpeed else { return nil }
        let radius = speed / abs(mean)
        let cosine = 1 - 2 * share * epsilon / radius
        let angle = cosine <= -1 ? Double.pi : min(.pi, 2 * acos(cosine))
        let horizon = angle / abs(mean)
        // The heading now: the last segment's, turned on by half of it.
        let heading = newestHeading + mean * dt / 2
        func arc(_ tau: Double) -> (Double, Double) {
            (speed / mean * (sin(heading + mean * tau) - sin(heading)),
             -speed / mean * (cos(heading + mean * tau) - cos(heading)))
        }
        let (endEast, endNorth) = arc(horizon)
        let (midEast, midNorth) = arc(horizon / 2)
        let bulgeEast = midEast - endEast / 2
        let bulgeNorth = midNorth - endNorth / 2
        let sagitta = (bulgeEast * bulgeEast + bulgeNorth * bulgeNorth).squareRoot()
        guard sagitta > 0, horizon > 0 else { return nil }
        return (bulgeEast / 2, bulgeNorth / 2, Velocity(east: endEast / horizon, north: endNorth / horizon))
    }

    /// The direction (radians, counter-clockwise from east) of segment `s`, or `nil` when its
    /// ends are less than 10 cm or no time apart.
    private static func heading(_ s: Int, _ points: [SentFrame.Point]) -> Double? {
        let dx = points[s].east - points[s + 1].east
        let dy = points[s].north - points[s + 1].north
        guard dx * dx + dy * dy > 0.01, points[s].tau > points[s + 1].tau else { return nil }
        return atan2(dy, dx)
    }

    /// Turn rate `r` (radians per second): from segment `r + 1` to segment `r`.
    private static func rate(_ r: Int, _ points: [SentFrame.Point]) -> Double? {
        guard let newer = heading(r, points), let older = heading(r + 1, points) else { return nil }
        var turn = newer - older
        if turn > .pi { turn -= 2 * .pi } else if turn < -.pi { turn += 2 * .pi }
        return turn / ((points[r].tau - points[r + 2].tau) / 2)
    }

    /// How many segments reach back ``persistence`` seconds (at least ``modelTurns`` + 1).
    private static func persistenceSegments(_ points: [SentFrame.Point]) -> Int {
        var oldest = 0
        while oldest + 1 < points.count, points[oldest + 1].tau >= points[0].tau - persistence - 1e-9 { oldest += 1 }
        return max(oldest + 1, modelTurns + 1)
    }
}
