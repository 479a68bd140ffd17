import Foundation

extension LocationMessage {
    /// The position of the fix as sent.
    public var coordinate: Coordinate { Coordinate(latitude: lat, longitude: lon) }

    /// The velocity a dashboard extrapolates with, or `nil` when the message says to hold.
    public var extrapolationVelocity: Velocity? {
        guard let ve, let vn, ve.isFinite, vn.isFinite else { return nil }
        return Velocity(east: ve, north: vn)
    }

    /// The position a dashboard displays at `time` from this message alone: SPEC §5's `predict`
    /// display model, computed from the wire fields only.
    ///
    /// With a velocity, the position moves on from `lat`/`lon` at (`ve`, `vn`) for the time since
    /// `tst`, but for at most `ms` seconds (default ``defaultMaxSilence``); after that it stays
    /// where the extrapolation stopped. Without a velocity, or before `tst`, it is `lat`/`lon`.
    /// The publisher's `bounded` policy and the subscriber both call this, so what the policy
    /// bounds is exactly what dashboards show.
    public func displayedPosition(at time: Date) -> Coordinate {
        displayedPosition(afterSeconds: time.timeIntervalSince1970 - Double(tst))
    }

    /// The displayed position `elapsed` seconds after `tst`; see ``displayedPosition(at:)``.
    public func displayedPosition(afterSeconds elapsed: Double) -> Coordinate {
        guard let velocity = extrapolationVelocity, elapsed > 0 else { return coordinate }
        let horizon = min(elapsed, Double(ms ?? Self.defaultMaxSilence))
        let projection = LocalProjection(origin: coordinate)
        return projection.unproject(east: velocity.east * horizon, north: velocity.north * horizon)
    }

    /// How long a dashboard extrapolates a message that carries a velocity but no `ms`, in seconds.
    public static let defaultMaxSilence = 60
}
