#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What a dashboard displays from the last message sent, in a form cheap enough to check against
/// every fix: the message's own projection, velocity and horizon.
///
/// Its decisions agree exactly with ``LocationMessage/displayedPosition(at:)`` measured by
/// ``Geodesy/distance(_:_:)``: a fast planar test settles clear cases and the exact computation
/// settles the ones near the threshold.
struct DisplayTracker: Sendable {
    // The wire values the display depends on (not the whole message: the policies copy the
    // tracker per fix, and a `LocationMessage` is some 250 bytes).
    private let lat: Double
    private let lon: Double
    private let wireTime: Int
    private let ve: Double?
    private let vn: Double?
    private let ms: Int?
    private let tr: Double?
    private let projection: LocalProjection
    private let east: Double
    private let north: Double
    private let tst: Double
    /// How long (s) dashboards extrapolate the message: its `ms`.
    let horizon: Double
    /// How much the planar distance may differ from the great-circle one, per metre of offset.
    private let distortion: Double

    init(message: LocationMessage) {
        lat = message.lat
        lon = message.lon
        wireTime = message.tst
        ve = message.ve
        vn = message.vn
        ms = message.ms
        tr = message.tr
        projection = LocalProjection(origin: message.coordinate)
        let velocity = message.extrapolationVelocity ?? .zero
        east = velocity.east
        north = velocity.north
        tst = Double(message.tst)
        horizon = Double(message.ms ?? LocationMessage.defaultMaxSilence)
        distortion = 1e-4 * (1 + abs(tan(message.lat * .pi / 180)))
    }

    /// The part of the message sent that decides what dashboards display (position, time,
    /// velocity and horizon), for ``LocationMessage/displayedPosition(at:)``.
    var message: LocationMessage {
        LocationMessage(tid: "--", tst: wireTime, lat: lat, lon: lon, acc: 1, ve: ve, vn: vn, ms: ms, tr: tr)
    }

    /// Whether dashboards extrapolate this message (it carries a non-zero velocity).
    var isMoving: Bool { east != 0 || north != 0 }

    /// The wire time of the message in epoch seconds.
    var time: Double { tst }

    /// Whether the displayed position at the fix's time is more than `epsilon` metres from it.
    func misses(_ fix: Fix, by epsilon: Double) -> Bool {
        let (e, n) = projection.project(fix.coordinate)
        let elapsed = min(max(fix.time.timeIntervalSince1970 - tst, 0), horizon)
        let moved = tr == nil ? (east: east * elapsed, north: north * elapsed)
            : LocationMessage.extrapolatedOffset(east: east, north: north, turnRate: tr, seconds: elapsed)
        let dx = e - moved.east
        let dy = n - moved.north
        let planar = (dx * dx + dy * dy).squareRoot()
        let margin = 0.5 + distortion * (abs(e) + abs(n))
        if planar < epsilon - margin { return false }
        if planar > epsilon + margin { return true }
        return Geodesy.distance(message.displayedPosition(at: fix.time), fix.coordinate) > epsilon
    }
}
