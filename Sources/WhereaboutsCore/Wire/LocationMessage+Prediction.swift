#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

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
    /// where the extrapolation stopped. With a turn rate `tr` as well, the velocity turns at that
    /// rate meanwhile, so the position follows an arc (``extrapolatedOffset(east:north:turnRate:seconds:)``).
    /// Without a velocity, or before `tst`, it is `lat`/`lon`.
    /// The publisher's `bounded` policy and the subscriber both call this, so what the policy
    /// bounds is exactly what dashboards show.
    public func displayedPosition(at time: Date) -> Coordinate {
        displayedPosition(afterSeconds: time.timeIntervalSince1970 - Double(tst))
    }

    /// The displayed position `elapsed` seconds after `tst`; see ``displayedPosition(at:)``.
    public func displayedPosition(afterSeconds elapsed: Double) -> Coordinate {
        guard let velocity = extrapolationVelocity, elapsed > 0 else { return coordinate }
        let horizon = min(elapsed, Double(ms ?? Self.defaultMaxSilence))
        let offset = Self.extrapolatedOffset(east: velocity.east, north: velocity.north, turnRate: tr, seconds: horizon)
        return LocalProjection(origin: coordinate).unproject(east: offset.east, north: offset.north)
    }

    /// How far (metres east and north) a display moves in `seconds` from velocity (`east`,
    /// `north`) turning at `turnRate` degrees per second (counter-clockwise positive; `nil`, zero
    /// or not finite: a straight line): the integral of the rotating velocity,
    /// `(sin ωt · v − (1 − cos ωt) · v⊥) / ω` with `v⊥ = (−north, east)`.
    package static func extrapolatedOffset(east: Double, north: Double, turnRate: Double?, seconds: Double) -> (east: Double, north: Double) {
        guard let turnRate, turnRate.isFinite, turnRate != 0 else { return (east * seconds, north * seconds) }
        let omega = turnRate * .pi / 180
        let sine = sin(omega * seconds) / omega, versine = (1 - cos(omega * seconds)) / omega
        return (east * sine - north * versine, north * sine + east * versine)
    }

    /// How long a dashboard extrapolates a message that carries a velocity but no `ms`, in seconds.
    public static let defaultMaxSilence = 60
}
