#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OwnTracks-compatible `location` message, exactly as it travels on the wire.
///
/// Field names and units are OwnTracks' (`vel` in km/h, `acc` in whole metres), so OwnTracks
/// apps, the Recorder, Home Assistant and Node-RED read these messages unchanged. Whereabouts adds
/// fields that other receivers ignore: `ve`/`vn` (the velocity a dashboard extrapolates with) and
/// `ms` (the publisher's `maxSilence`).
public struct LocationMessage: Sendable, Hashable, Codable {
    /// Always `"location"`.
    public var type: String = "location"
    /// Two-character tracker id. Always sent: Android's reader drops a location without it.
    public var tid: String
    /// Epoch seconds of the fix. Never 0.
    public var tst: Int
    /// Latitude in degrees (6 decimals on the wire).
    public var lat: Double
    /// Longitude in degrees (6 decimals on the wire).
    public var lon: Double
    /// Horizontal accuracy in whole metres, above 0 (Home Assistant drops 0 or missing).
    public var acc: Int
    /// Altitude in whole metres, when known.
    public var alt: Int?
    /// Vertical accuracy in whole metres, when known.
    public var vac: Int?
    /// Speed in whole km/h, when known.
    public var vel: Int?
    /// Course over ground in whole degrees, when known.
    public var cog: Int?
    /// Battery level in percent, when known.
    public var batt: Int?
    /// Battery status: 0 unknown, 1 unplugged, 2 charging, 3 full.
    public var bs: Int?
    /// Trigger letter: why this report was sent.
    public var t: String?
    /// Monitoring mode: 1 significant, 2 active.
    public var m: Int?
    /// Epoch seconds when the message was built, present when later than `tst` (backlog replay).
    public var createdAt: Int?
    /// East velocity in m/s (2 decimals) that a dashboard extrapolates with; absent means hold.
    public var ve: Double?
    /// North velocity in m/s (2 decimals) that a dashboard extrapolates with; absent means hold.
    public var vn: Double?
    /// The publisher's `maxSilence` in seconds: a dashboard extrapolates at most this long.
    public var ms: Int?
    /// Turn rate in degrees per second (2 decimals), positive counter-clockwise (turning left): a
    /// dashboard turns the extrapolated velocity at this rate, so the display follows an arc, for
    /// at most `ms`. Absent (and in every OwnTracks app's message): a straight line.
    public var tr: Double?
    /// Epoch seconds by which the publisher's next message will have come at the latest (a
    /// location or a heartbeat presence): a receiver that passes it without news knows something
    /// is wrong. Absent from publishers that promise nothing (the OwnTracks apps).
    public var due: Int?
    /// The names of the device's places it is inside (OwnTracks `inregions`, Android's and iOS's
    /// `MessageLocation`); absent when none.
    public var inregions: [String]?
    /// The region ids of those places (`inrids`, as the iOS app sends them); absent when none.
    public var inrids: [String]?
    /// The device's connectivity (`conn`: `w` Wi-Fi, `m` mobile, `o` offline; both apps).
    public var conn: String?
    /// Barometric pressure in kPa (`p`, the iOS app).
    public var p: Double?
    /// The Wi-Fi network's name (`SSID`, both apps when on Wi-Fi).
    public var ssid: String?
    /// The Wi-Fi access point's MAC address (`BSSID`, both apps when on Wi-Fi).
    public var bssid: String?
    /// The motion activities the phone reports (`motionactivities`, the iOS app: `stationary`,
    /// `walking`, `automotive` ...).
    public var motionactivities: [String]?
    /// The name of a point of interest the user marked this location as (OwnTracks `poi`, sent
    /// by the apps' "publish with POI").
    public var poi: String?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case tid, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, t, m
        case createdAt = "created_at"
        case ve, vn, ms, tr, due, inregions, inrids, conn, p, motionactivities, poi
        case ssid = "SSID", bssid = "BSSID"
    }

    /// Creates a message from already-rounded wire values.
    public init(
        tid: String, tst: Int, lat: Double, lon: Double, acc: Int,
        alt: Int? = nil, vac: Int? = nil, vel: Int? = nil, cog: Int? = nil,
        batt: Int? = nil, bs: Int? = nil, t: String? = nil, m: Int? = nil,
        createdAt: Int? = nil, ve: Double? = nil, vn: Double? = nil, ms: Int? = nil, due: Int? = nil,
        tr: Double? = nil
    ) {
        self.tr = tr
        self.due = due
        self.tid = tid
        self.tst = tst
        self.lat = lat
        self.lon = lon
        self.acc = acc
        self.alt = alt
        self.vac = vac
        self.vel = vel
        self.cog = cog
        self.batt = batt
        self.bs = bs
        self.t = t
        self.m = m
        self.createdAt = createdAt
        self.ve = ve
        self.vn = vn
        self.ms = ms
    }
}
