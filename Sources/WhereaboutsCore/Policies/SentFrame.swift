#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The recent fixes as a dashboard will see a report's extrapolation: projected into the plane of
/// the position being sent, with times relative to the wire `tst`. `bounded`'s estimators
/// (`VelocityExperts`) and its quadratic fit (`Kinematics`) read
/// them, so a velocity they compute is exactly the one dashboards extrapolate.
enum SentFrame {
    /// How far back (s) the frame looks by default: 128 s. The newest two fixes within it are
    /// always included, for ``lastTwo(points:)``.
    static let reach = 128.0

    /// One remembered fix in the frame: seconds relative to `tst` (negative: before it), metres
    /// east and north of the sent position.
    struct Point {
        var tau: Double
        var east: Double
        var north: Double
    }

    /// The remembered fixes of the last `longest` seconds (at most ``reach``), newest first, in the
    /// frame of `origin` and `tst`; the newest two within ``reach`` in any case.
    static func recentPoints(history: FixHistory, origin: Coordinate, tst: Double, within longest: Double = reach) -> [Point] {
        let projection = LocalProjection(origin: origin)
        var points: [Point] = []
        points.reserveCapacity(min(history.count, 2 + Int(min(longest, 256))))
        for age in 0..<history.count {
            let entry = history[age]
            let tau = entry.time - tst
            if tau < -longest, age >= 2 || tau < -reach { break }
            let (east, north) = projection.project(Coordinate(latitude: entry.latitude, longitude: entry.longitude))
            points.append(Point(tau: tau, east: east, north: north))
        }
        return points
    }

    /// The remembered fixes of the last `seconds` (default ``reach``), newest first, in the frame
    /// of `fix` as a report would send it: coordinates rounded to the wire's 6 decimals, times
    /// relative to the wire `tst`.
    static func recentPoints(history: FixHistory, fix: Fix, within seconds: Double = reach) -> [Point] {
        recentPoints(history: history, origin: origin(of: fix), tst: fix.time.timeIntervalSince1970.rounded(.down), within: seconds)
    }

    /// The frame's origin for a report of `fix`: its position rounded as the wire rounds it.
    static func origin(of fix: Fix) -> Coordinate {
        Coordinate(latitude: LocationMessage.roundCoordinate(fix.latitude), longitude: LocationMessage.roundCoordinate(fix.longitude))
    }

    /// The velocity between the two newest points, when they are apart in time.
    static func lastTwo(points: [Point]) -> Velocity? {
        guard points.count >= 2, points[0].tau > points[1].tau else { return nil }
        let dt = points[0].tau - points[1].tau
        return Velocity(east: (points[0].east - points[1].east) / dt, north: (points[0].north - points[1].north) / dt)
    }
}
