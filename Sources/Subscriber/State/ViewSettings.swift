import Foundation
import WhereaboutsCore

/// How the subscriber judges freshness and how much history it keeps per member.
///
/// Every field has a default, so `ViewSettings()` is a working configuration.
package struct ViewSettings: Sendable, Hashable {
    /// Seconds without news after which an online member is shown `stale`. Default 300 s.
    package var staleTimeout: Double
    /// The most fixes kept in a member's trail. Default 20.
    package var trailLength: Int
    /// The longest span a trail covers, in seconds before the newest fix. Default 600 s.
    package var trailDuration: Int
    /// How far a fix's `tst` may lie in the future (clock skew) before it is rejected, in seconds.
    /// Default 300 s.
    package var futureTolerance: Int
    /// The worst horizontal accuracy (`acc`, metres) a location may claim before it is rejected as
    /// an outlier (`poor_accuracy`, kept aside in the history); `nil` (the default) accepts any.
    /// 5,000 m is a sensible value: cell-tower fixes of a few kilometres are rejected, the apps'
    /// Wi-Fi and network fixes (tens to hundreds of metres) pass.
    package var maxAccuracy: Int?
    /// The highest speed (m/s) a location may imply from the member's live fix before it is
    /// rejected as an outlier (`implied_speed`, kept aside in the history); `nil` (the default)
    /// switches the check off. 350 m/s (1,260 km/h), above any airliner's ground speed, is a
    /// sensible value: only jumps no device makes are rejected.
    package var maxImpliedSpeed: Double?
    /// The largest payload accepted, in bytes; larger ones are rejected unparsed. Default 16 KiB.
    /// Cards on `<base>/info` may be larger (``MessageDecoder/maxCardPayloadBytes``).
    package var maxPayloadBytes: Int
    /// How old a fix's `tst` may be on arrival for the fix to count as live news (setting the
    /// member online), in seconds. Older fixes, and fixes older than the live one, are backlog:
    /// trail only. Default 60 s.
    package var liveWindow: Double
    /// Seconds past a device's promised `due` before it is shown `overdue`: delivery time and
    /// clock skew. Default 120 s.
    package var overdueGrace: Double
    /// Seconds without any news after which a member is `gone` (hidden from the map, still
    /// listed). Default 30 days.
    package var goneAfter: Double
    /// How arrivals at and departures from the circles' places are judged.
    package var placeRules: PlaceRules

    /// Creates settings; every argument has the documented default.
    package init(
        staleTimeout: Double = 300, trailLength: Int = 20, trailDuration: Int = 600,
        futureTolerance: Int = 300, maxPayloadBytes: Int = 16 * 1024, liveWindow: Double = 60,
        placeRules: PlaceRules = .subscriber(), overdueGrace: Double = 120, goneAfter: Double = 30 * 86_400,
        maxAccuracy: Int? = nil, maxImpliedSpeed: Double? = nil
    ) {
        self.maxAccuracy = maxAccuracy
        self.maxImpliedSpeed = maxImpliedSpeed
        self.overdueGrace = overdueGrace
        self.goneAfter = goneAfter
        self.liveWindow = liveWindow
        self.placeRules = placeRules
        self.staleTimeout = staleTimeout
        self.trailLength = trailLength
        self.trailDuration = trailDuration
        self.futureTolerance = futureTolerance
        self.maxPayloadBytes = maxPayloadBytes
    }
}
