/// How arrivals and departures are judged, for every place.
public struct PlaceRules: Sendable, Hashable {
    /// The least distance in metres beyond a place's radius a fix must lie to count as having
    /// left it (the hysteresis band is the larger of this and the fix's accuracy). Default 25 m.
    public var margin: Double
    /// Seconds inside a place before an arrival counts, for places that set no `dwell`.
    /// Default 60 s.
    public var defaultDwell: Double

    /// Whether leaving needs a fix beyond the hysteresis band (always, except to measure what
    /// the band saves).
    var hysteresis = true
    /// Whether arriving waits for the dwell time (always, except to measure what dwell saves).
    var waitsForDwell = true

    /// Creates rules; every argument has the documented default.
    public init(margin: Double = 25, defaultDwell: Double = 60) {
        self.margin = margin
        self.defaultDwell = defaultDwell
    }

    /// No hysteresis and no dwell: arrive at the first fix inside, leave at the first fix
    /// outside, as a plain geofence does. Only for measuring what the rules save.
    static var naive: PlaceRules {
        var rules = PlaceRules(margin: 0, defaultDwell: 0)
        rules.hysteresis = false
        rules.waitsForDwell = false
        return rules
    }

    /// The dwell time of `place` under these rules.
    func dwell(of place: Place) -> Double {
        waitsForDwell ? place.dwell ?? defaultDwell : 0
    }
}
