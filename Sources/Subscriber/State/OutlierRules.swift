import WhereaboutsCore

/// The rules that reject a well-formed location as an outlier at ingest (besides the decoder's
/// future-time check): a claimed accuracy worse than ``maxAccuracy``, or a position that cannot
/// be reached from the member's live fix without exceeding ``maxImpliedSpeed``.
///
/// Only a fix newer than the live fix is checked for speed (backlog older than the live fix is
/// history the device already travelled). A device that really jumped is accepted again as soon
/// as the time since the live fix makes the jump plausible, so no rule locks a member out for
/// good, and whatever was rejected is kept aside in the history and can be restored.
struct OutlierRules: Sendable {
    /// The worst accuracy accepted, in metres; `nil` accepts any.
    var maxAccuracy: Int?
    /// The highest implied speed accepted, in m/s; `nil` switches the check off.
    var maxImpliedSpeed: Double?

    init(settings: ViewSettings) {
        maxAccuracy = settings.maxAccuracy
        maxImpliedSpeed = settings.maxImpliedSpeed
    }

    /// What the speed rule needs of the live fix: its time and position (ingest reads these
    /// three fields in place instead of copying the member's whole state and fix per message).
    struct LivePoint: Sendable {
        var tst: Int
        var lat: Double
        var lon: Double
    }

    /// The rule `location` breaks given the member's `live` fix, or `nil` when it passes.
    func violation(of location: LocationMessage, after live: LocationMessage?) -> MessageRejectionReason? {
        violation(of: location, afterLivePoint: live.map { LivePoint(tst: $0.tst, lat: $0.lat, lon: $0.lon) })
    }

    /// The rule `location` breaks given the time and position of the member's live fix.
    func violation(of location: LocationMessage, afterLivePoint live: LivePoint?) -> MessageRejectionReason? {
        if let maxAccuracy, location.acc > maxAccuracy {
            return .poorAccuracy(metres: location.acc, limit: maxAccuracy)
        }
        guard let maxImpliedSpeed, let live, location.tst > live.tst else { return nil }
        let metres = Geodesy.distance(
            Coordinate(latitude: live.lat, longitude: live.lon), Coordinate(latitude: location.lat, longitude: location.lon))
        let speed = metres / Double(location.tst - live.tst)
        return speed > maxImpliedSpeed ? .impliedSpeed(metresPerSecond: speed, limit: maxImpliedSpeed) : nil
    }
}
