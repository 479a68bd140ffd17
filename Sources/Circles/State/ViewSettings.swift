import Foundation

/// How the subscriber judges freshness and how much history it keeps per member.
///
/// Every field has a default, so `ViewSettings()` is a working configuration.
public struct ViewSettings: Sendable, Hashable {
    /// Seconds without news after which an online member is shown `stale`. Default 300 s.
    public var staleTimeout: Double
    /// The most fixes kept in a member's trail. Default 20.
    public var trailLength: Int
    /// The longest span a trail covers, in seconds before the newest fix. Default 600 s.
    public var trailDuration: Int
    /// How far a fix's `tst` may lie in the future (clock skew) before it is rejected, in seconds.
    /// Default 300 s.
    public var futureTolerance: Int
    /// The largest payload accepted, in bytes; larger ones are rejected unparsed. Default 16 KiB.
    public var maxPayloadBytes: Int

    /// Creates settings; every argument has the documented default.
    public init(
        staleTimeout: Double = 300, trailLength: Int = 20, trailDuration: Int = 600,
        futureTolerance: Int = 300, maxPayloadBytes: Int = 16 * 1024
    ) {
        self.staleTimeout = staleTimeout
        self.trailLength = trailLength
        self.trailDuration = trailDuration
        self.futureTolerance = futureTolerance
        self.maxPayloadBytes = maxPayloadBytes
    }
}
