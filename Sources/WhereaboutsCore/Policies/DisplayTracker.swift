import Foundation

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
        LocationMessage(tid: "--", tst: wireTime, lat: lat, lon: lon, acc: 1, ve: ve, vn: vn, ms: ms)
    }

    /// Whether dashboards extrapolate this message (it carries a non-zero velocity).
    var isMoving: Bool { east != 0 || north != 0 }

    /// The wire time of the message in epoch seconds.
    var time: Double { tst }

    /// Whether the displayed position at the fix's time is more than `epsilon` metres from it.
    func misses(_ fix: Fix, by epsilon: Double) -> Bool {
        let (e, n) = projection.project(fix.coordinate)
        let elapsed = min(max(fix.time.timeIntervalSince1970 - tst, 0), horizon)
        let dx = e - east * elapsed
        let dy = n - north * elapsed
        let planar = (dx * dx + dy * dy).squareRoot()
        let margin = 0.5 + distortion * (abs(e) + abs(n))
        if planar < epsilon - margin { return false }
        if planar > epsilon + margin { return true }
        return Geodesy.distance(message.displayedPosition(at: fix.time), fix.coordinate) > epsilon
    }
}

/// The part that dead reckoning and `bounded` share: keep the last message, report when its
/// displayed position misses a fix by more than `epsilon`, and report at least every
/// `maxSilence` seconds while the display is extrapolating. A message sent with a shorter horizon
/// than `maxSilence` stops moving on dashboards before then and needs no `T` report. No message
/// carries a velocity faster than `maxSpeed`: such a velocity (a jump, a spike) is not sent, so
/// dashboards hold the position instead of extrapolating it at an impossible speed.
struct PredictionGuard: Sendable {
    let epsilon: Double
    let maxSilence: Int
    let maxSpeed: Double?
    /// What dashboards display from the last message sent; meaningful once `hasDisplay`. Not an
    /// optional: the per-fix check then reads it in place, where unwrapping an optional copied
    /// its 150 bytes for every fix (callgrind, BENCHMARKS.md "Cost").
    private var display = DisplayTracker(message: LocationMessage(tid: "--", tst: 0, lat: 0, lon: 0, acc: 1, ve: nil, vn: nil, ms: nil))
    private var hasDisplay = false

    init(epsilon: Double, maxSilence: Int, maxSpeed: Double? = nil) {
        self.epsilon = epsilon
        self.maxSilence = maxSilence
        self.maxSpeed = maxSpeed
    }

    /// The trigger that makes `fix` worth reporting, or `nil` to stay silent.
    func trigger(for fix: Fix) -> Trigger? {
        guard hasDisplay else { return .firstPublish }
        if display.misses(fix, by: epsilon) { return .moving }
        if display.isMoving, display.horizon >= Double(maxSilence),
           fix.time.timeIntervalSince1970 - display.time >= Double(maxSilence) {
            return .timePassed
        }
        return nil
    }

    /// Whether a message for `fix` with `velocity` would already miss the fix itself: the wire's
    /// `tst` is the fix's time rounded down to the second, so by the fix's own time dashboards
    /// have moved the position on by up to one second of `velocity`. Such a report holds instead,
    /// which keeps the bound at the reported fix too.
    private func missesOwnFix(_ fix: Fix, velocity: Velocity, ms: Int) -> Bool {
        let time = fix.time.timeIntervalSince1970
        let fraction = time - time.rounded(.down)
        guard velocity.speed * fraction > epsilon - 1 else { return false }
        let message = LocationMessage(report: Report(fix: fix, trigger: .moving, velocity: velocity, maxSilence: ms), tid: "--")
        return DisplayTracker(message: message).misses(fix, by: epsilon)
    }

    /// Whether `velocity` may be sent: finite and not faster than `maxSpeed`.
    func allowed(_ velocity: Velocity) -> Bool {
        let speed = velocity.speed
        guard speed.isFinite else { return false }
        return maxSpeed.map { speed <= $0 } ?? true
    }

    /// Whether dashboards are extrapolating the last message.
    var isMoving: Bool { hasDisplay && display.isMoving }

    /// Whether a moving message for `fix` sent from `position` instead of the fix's own position
    /// keeps the fix itself within `epsilon` (after wire rounding) and its velocity may be sent.
    func keeps(_ fix: Fix, from position: Coordinate, velocity: Velocity) -> Bool {
        guard velocity != .zero, allowed(velocity) else { return false }
        let message = LocationMessage(report: Report(fix: fix.moved(to: position), trigger: .moving, velocity: velocity, maxSilence: maxSilence), tid: "--")
        return !DisplayTracker(message: message).misses(fix, by: epsilon)
    }

    /// Builds the report for `fix` with `velocity` (nil, zero or faster than `maxSpeed` holds), turning a `t` or `T` into
    /// `k` or `v` when the display stops or starts moving, and remembers what dashboards will show.
    /// A moving report carries `horizon` (clamped to 1...`maxSilence`) as its `ms`, or
    /// `maxSilence` when `horizon` is nil. With `position`, the report is sent from there instead
    /// of the fix's own position (check it with ``keeps(_:from:velocity:)`` first; it is ignored
    /// for a report that holds).
    mutating func report(_ fix: Fix, trigger: Trigger, velocity: Velocity?, horizon: Int? = nil, position: Coordinate? = nil) -> Report {
        var velocity = velocity.flatMap { $0 == .zero || !allowed($0) ? nil : $0 }
        let ms = horizon.map { min(max($0, 1), maxSilence) } ?? maxSilence
        var sent = fix
        if let position, let moving = velocity, keeps(fix, from: position, velocity: moving) {
            sent = fix.moved(to: position)
        } else if let moving = velocity, missesOwnFix(fix, velocity: moving, ms: ms) {
            velocity = nil
        }
        var trigger = trigger
        if trigger == .moving || trigger == .timePassed, hasDisplay {
            if display.isMoving, velocity == nil { trigger = .becameStationary }
            if !display.isMoving, velocity != nil { trigger = .startedMoving }
        }
        let report = Report(fix: sent, trigger: trigger, velocity: velocity, maxSilence: velocity == nil ? nil : ms)
        display = DisplayTracker(message: LocationMessage(report: report, tid: "--"))
        hasDisplay = true
        return report
    }
}

/// Checks the parameters the predicting policies share.
func validatePrediction(epsilon: Double, maxSilence: Int, maxSpeed: Double? = nil) throws(PolicySettingsError) {
    try requirePositive(epsilon, "epsilon")
    guard maxSilence > 0 else { throw .notPositive(parameter: "max-silence", value: Double(maxSilence)) }
    if let maxSpeed { try requirePositive(maxSpeed, "max-speed") }
}
