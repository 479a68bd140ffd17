/// How ``PlaceTracker`` judges arrivals and departures, for every place: the dwell before an
/// arrival counts, the hysteresis band beyond the edge, and the leave rule (how many fixes in a
/// row beyond the band make a departure).
///
/// The two programs differ in the leave rule only, and both settings are here:
/// - ``device(margin:defaultDwell:)`` (the publisher) needs **two** fixes beyond the band: it sees
///   every fix of the receiver, and a single multipath outlier (the simulator's, 80-400 m off with
///   a plausible accuracy, get past the rejection filters now and then) must not make a device
///   that stands at home leave and enter again.
/// - ``subscriber(margin:defaultDwell:)`` needs **one**: it sees only the fixes the device chose
///   to report, minutes apart, and each one is already filtered.
public struct PlaceRules: Sendable, Hashable {
    /// The least distance in metres beyond a place's radius a fix must lie to count as beyond the
    /// edge: the leave boundary is radius + max(the fix's accuracy, margin). Default 25 m.
    public var margin: Double
    /// Seconds inside a place before an arrival counts, for places that set no `dwell`.
    /// Default 60 s.
    public var defaultDwell: Double
    /// Fixes in a row beyond the leave boundary that make a departure (at least 1); a fix not
    /// beyond it in between starts the count again.
    var fixesToLeave: Int

    /// Whether leaving needs a fix beyond the hysteresis band (always, except to measure what
    /// the band saves).
    package var hysteresis = true
    /// Whether arriving waits for the dwell time (always, except to measure what dwell saves).
    var waitsForDwell = true

    /// The default margin, metres.
    public static let defaultMargin = 25.0
    /// The default dwell, seconds.
    public static let defaultDwell = 60.0

    /// Creates rules; `fixesToLeave` below 1 counts as 1.
    public init(margin: Double = PlaceRules.defaultMargin, defaultDwell: Double = PlaceRules.defaultDwell, fixesToLeave: Int) {
        self.margin = margin
        self.defaultDwell = defaultDwell
        self.fixesToLeave = max(1, fixesToLeave)
    }

    /// The publisher's rules: two fixes beyond the edge to leave (see the type's summary).
    public static func device(margin: Double = PlaceRules.defaultMargin, defaultDwell: Double = PlaceRules.defaultDwell) -> PlaceRules {
        PlaceRules(margin: margin, defaultDwell: defaultDwell, fixesToLeave: 2)
    }

    /// The subscriber's rules: one fix beyond the edge to leave (see the type's summary).
    public static func subscriber(margin: Double = PlaceRules.defaultMargin, defaultDwell: Double = PlaceRules.defaultDwell) -> PlaceRules {
        PlaceRules(margin: margin, defaultDwell: defaultDwell, fixesToLeave: 1)
    }

    /// No hysteresis and no dwell: arrive at the first fix inside, leave at the first fix
    /// outside, as a plain geofence does. Only for measuring what the rules save.
    static var naive: PlaceRules {
        var rules = PlaceRules(margin: 0, defaultDwell: 0, fixesToLeave: 1)
        rules.hysteresis = false
        rules.waitsForDwell = false
        return rules
    }

    /// The dwell time of `place` under these rules.
    public func dwell(of place: Place) -> Double {
        waitsForDwell ? place.dwell ?? defaultDwell : 0
    }

    /// Whether a fix `distance` metres from the centre of `place`, with horizontal accuracy
    /// `accuracy` metres, lies beyond the leave boundary.
    func isBeyond(_ distance: Double, of place: Place, accuracy: Double?) -> Bool {
        distance > place.radius + (hysteresis ? max(accuracy ?? 0, margin) : 0)
    }
}
