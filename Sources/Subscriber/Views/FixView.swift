import Foundation
import WhereaboutsCore

/// A member's current fix as it appears in a view: the wire fields of the OwnTracks `location`
/// message it came from, so a browser can re-extrapolate with `ve`/`vn`/`ms` using the same
/// formula as ``WhereaboutsCore/LocationMessage/displayedPosition(at:)``.
package struct FixView: Sendable, Hashable, Codable {
    /// Epoch seconds of the fix.
    package var tst: Int
    /// Latitude in degrees.
    package var lat: Double
    /// Longitude in degrees.
    package var lon: Double
    /// Horizontal accuracy in metres.
    package var acc: Int
    /// Altitude in metres, when known.
    package var alt: Int?
    /// Speed in km/h (OwnTracks `vel`), when known.
    package var vel: Int?
    /// Course over ground in degrees, when known.
    package var cog: Int?
    /// Trigger letter, when sent.
    package var t: String?
    /// Battery level in percent, when known.
    package var batt: Int?
    /// East velocity in m/s that the display extrapolates with; absent means hold.
    package var ve: Double?
    /// North velocity in m/s that the display extrapolates with; absent means hold.
    package var vn: Double?
    /// How long (s) the display extrapolates before it holds: the publisher's `maxSilence`, or
    /// less when the `bounded` policy predicts a stop (its braking horizon).
    package var ms: Int?
    /// Turn rate (degrees per second, counter-clockwise positive) the display turns the velocity
    /// at while it extrapolates; absent means a straight line.
    package var tr: Double?

    /// Creates a fix view from its wire fields.
    package init(
        tst: Int, lat: Double, lon: Double, acc: Int, alt: Int? = nil, vel: Int? = nil,
        cog: Int? = nil, t: String? = nil, batt: Int? = nil, ve: Double? = nil, vn: Double? = nil,
        ms: Int? = nil, tr: Double? = nil
    ) {
        self.tr = tr
        self.tst = tst
        self.lat = lat
        self.lon = lon
        self.acc = acc
        self.alt = alt
        self.vel = vel
        self.cog = cog
        self.t = t
        self.batt = batt
        self.ve = ve
        self.vn = vn
        self.ms = ms
    }

    /// The view of a received location message.
    package init(_ message: LocationMessage) {
        self.init(
            tst: message.tst, lat: message.lat, lon: message.lon, acc: message.acc,
            alt: message.alt, vel: message.vel, cog: message.cog, t: message.t,
            batt: message.batt, ve: message.ve, vn: message.vn, ms: message.ms, tr: message.tr
        )
    }

    /// The location message this view shows (with `tid`), for ``displayedPosition(at:)``.
    func locationMessage(tid: String) -> LocationMessage {
        LocationMessage(
            tid: tid, tst: tst, lat: lat, lon: lon, acc: acc, alt: alt, vel: vel, cog: cog,
            batt: batt, t: t, ve: ve, vn: vn, ms: ms, tr: tr
        )
    }
}
