/// The hysteresis and dwell the device applies to its places, the same rules as the subscriber's
/// (docs/subscriber.md, "Places").
public struct DevicePlaceRules: Sendable, Hashable {
    /// Metres beyond the radius a fix must be, at least, before the device counts as gone: the
    /// leave boundary is radius + max(the fix's accuracy, margin). Default 25 m.
    public var margin: Double
    /// Seconds inside before the device counts as entered, for places without their own. Default 60 s.
    public var dwell: Double

    /// The default margin, metres.
    public static let defaultMargin = 25.0
    /// The default dwell, seconds.
    public static let defaultDwell = 60.0

    /// Creates rules; the defaults are 25 m and 60 s.
    public init(margin: Double = DevicePlaceRules.defaultMargin, dwell: Double = DevicePlaceRules.defaultDwell) {
        self.margin = margin
        self.dwell = dwell
    }
}
