#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension Fix {
    /// The great-circle distance in metres from `other` to this fix.
    public func distance(from other: Fix) -> Double {
        Geodesy.distance(other.coordinate, coordinate)
    }

    /// The speed in m/s needed to travel from `previous` to this fix in the time between them, or
    /// `nil` when this fix is not later than `previous`.
    func impliedSpeed(from previous: Fix) -> Double? {
        let elapsed = time.timeIntervalSince(previous.time)
        guard elapsed > 0 else { return nil }
        return distance(from: previous) / elapsed
    }

    /// The velocity in m/s that carries `previous` to this fix in the time between them, in the
    /// east/north frame of `previous`, or `nil` when this fix is not later than `previous`.
    package func impliedVelocity(from previous: Fix) -> Velocity? {
        let elapsed = time.timeIntervalSince(previous.time)
        guard elapsed > 0 else { return nil }
        let (east, north) = LocalProjection(origin: previous.coordinate).project(coordinate)
        return Velocity(east: east / elapsed, north: north / elapsed)
    }
}

extension Fix {
    /// The velocity the source measured (speed over ground along the course), when it gave both.
    var measuredVelocity: Velocity? {
        guard let speed, let course, speed.isFinite, course.isFinite, speed >= 0 else { return nil }
        let radians = course * .pi / 180
        return Velocity(east: speed * sin(radians), north: speed * cos(radians))
    }
}

extension Fix {
    /// The same fix with its position replaced: what a report sends when the policy chose a
    /// position other than the measured one (``BoundedPolicy``'s lag).
    func moved(to position: Coordinate) -> Fix {
        var moved = self
        moved.latitude = position.latitude
        moved.longitude = position.longitude
        return moved
    }
}
