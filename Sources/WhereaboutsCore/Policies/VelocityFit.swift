import Foundation

/// Chooses the velocity `bounded` sends: the candidate that explains the recent trajectory for
/// the longest time back.
///
/// The recent fixes are projected into the frame of the position being sent, with times relative
/// to the wire `tst`, exactly as a dashboard will extrapolate. The candidates, in order of
/// preference on a tie, are: the velocity between the last two fixes (plain dead reckoning's),
/// least-squares fits of a straight line through the sent position over the last 2, 4, 8, 16,
/// 32, 64 and 128 seconds, and the velocity the receiver measured (speed and course), when it gave
/// one. Each is scored by how far back in time every fix stays within `tolerance` metres of its
/// line. On sparse or noisy tracks many candidates explain the same few fixes; such ties go to the
/// one that stays within a looser band (`looseTolerance`, half of epsilon) further back, a sign
/// of the motion that has lasted. Zero velocity (hold) competes too and wins remaining ties
/// against the fitted candidates, so a device that has been standing still keeps holding, while
/// the receiver's measured velocity wins ties against everything (it is right even without
/// history, such as at the first fix). Candidates slower than `stationarySpeed` are not sent.
enum VelocityFit {
    /// The least-squares windows in seconds.
    static let windows: [Double] = [2, 4, 8, 16, 32, 64, 128]

    struct Point {
        var tau: Double
        var east: Double
        var north: Double
    }

    /// The chosen velocity, or `nil` for hold, for points projected by
    /// ``recentPoints(history:origin:tst:)``.
    ///
    /// A candidate beats the leader by explaining the past for longer within `tolerance`; on a
    /// tie, by explaining it for longer within `looseTolerance` (computed only for ties, so the
    /// usual cost is one pass per candidate).
    static func choose(
        points: [Point], tolerance: Double, looseTolerance: Double, stationarySpeed: Double, measured: Velocity?
    ) -> Velocity? {
        var best = Velocity.zero
        var bestSpan = span(of: .zero, points: points, tolerance: tolerance)
        var bestLooseSpan: Double? = nil
        func challenge(_ candidate: Velocity, winsTies: Bool) {
            let candidateSpan = span(of: candidate, points: points, tolerance: tolerance)
            var candidateLooseSpan: Double? = nil
            if candidateSpan < bestSpan { return }
            if candidateSpan == bestSpan {
                let leader = bestLooseSpan ?? span(of: best, points: points, tolerance: looseTolerance)
                bestLooseSpan = leader
                let loose = span(of: candidate, points: points, tolerance: looseTolerance)
                if loose < leader || (loose == leader && !winsTies) { return }
                candidateLooseSpan = loose
            }
            best = candidate
            bestSpan = candidateSpan
            bestLooseSpan = candidateLooseSpan
        }
        for candidate in candidates(points: points) where candidate.speed >= stationarySpeed {
            challenge(candidate, winsTies: false)
        }
        // The receiver's own measurement (Doppler) wins ties: it needs no history to be right.
        if let measured, measured.speed >= stationarySpeed { challenge(measured, winsTies: true) }
        return best == .zero ? nil : best
    }

    /// The remembered fixes of the last `windows.last` seconds, newest first, in the sent frame.
    ///
    /// `within` shortens the look back (the newest two fixes within `windows.last` are always
    /// included, for ``lastTwo(points:)``).
    static func recentPoints(history: FixHistory, origin: Coordinate, tst: Double, within longest: Double = windows[windows.count - 1]) -> [Point] {
        let projection = LocalProjection(origin: origin)
        var points: [Point] = []
        points.reserveCapacity(min(history.count, 2 + Int(min(longest, 256))))
        for age in 0..<history.count {
            let entry = history[age]
            let tau = entry.time - tst
            if tau < -longest, age >= 2 || tau < -windows[windows.count - 1] { break }
            let (east, north) = projection.project(Coordinate(latitude: entry.latitude, longitude: entry.longitude))
            points.append(Point(tau: tau, east: east, north: north))
        }
        return points
    }

    /// The remembered fixes of the last `seconds` (default `windows.last`), newest first, in the
    /// frame of `fix` as a report would send it: coordinates rounded to the wire's 6 decimals,
    /// times relative to the wire `tst`.
    static func recentPoints(history: FixHistory, fix: Fix, within seconds: Double = windows[windows.count - 1]) -> [Point] {
        let origin = Coordinate(
            latitude: LocationMessage.roundCoordinate(fix.latitude),
            longitude: LocationMessage.roundCoordinate(fix.longitude)
        )
        return recentPoints(history: history, origin: origin, tst: fix.time.timeIntervalSince1970.rounded(.down), within: seconds)
    }

    /// The velocity between the two newest points, when they are apart in time.
    static func lastTwo(points: [Point]) -> Velocity? {
        guard points.count >= 2, points[0].tau > points[1].tau else { return nil }
        let dt = points[0].tau - points[1].tau
        return Velocity(east: (points[0].east - points[1].east) / dt, north: (points[0].north - points[1].north) / dt)
    }

    /// The candidate velocities in order of preference.
    static func candidates(points: [Point]) -> [Velocity] {
        var candidates: [Velocity] = []
        if let lastTwo = lastTwo(points: points) { candidates.append(lastTwo) }
        // Least squares through the origin: v = Σ τ p / Σ τ², accumulated newest to oldest and
        // read off at each window boundary.
        var sumTE = 0.0, sumTN = 0.0, sumTT = 0.0
        var window = 0
        func close() {
            if sumTT > 0 { candidates.append(Velocity(east: sumTE / sumTT, north: sumTN / sumTT)) }
            window += 1
        }
        for point in points {
            while window < windows.count, point.tau < -windows[window] { close() }
            sumTE += point.tau * point.east
            sumTN += point.tau * point.north
            sumTT += point.tau * point.tau
        }
        if window < windows.count { close() }
        return candidates
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
