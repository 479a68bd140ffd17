import Foundation

/// What a dashboard displays from the last message sent, in a form cheap enough to check against
/// every fix: the message's own projection, velocity and horizon.
///
/// Its decisions agree exactly with ``LocationMessage/displayedPosition(at:)`` measured by
/// ``Geodesy/distance(_:_:)``: a fast planar test settles clear cases and the exact computation
/// settles the ones near the threshold.
struct DisplayTracker: Sendable {
    /// The message as sent.
    let message: LocationMessage
    private let projection: LocalProjection
    private let east: Double
    private let north: Double
    private let tst: Double
    /// How long (s) dashboards extrapolate the message: its `ms`.
    let horizon: Double
    /// How much the planar distance may differ from the great-circle one, per metre of offset.
    private let distortion: Double

    init(message: LocationMessage) {
        self.message = message
        projection = LocalProjection(origin: message.coordinate)
        let velocity = message.extrapolationVelocity ?? .zero
        east = velocity.east
        north = velocity.north
        tst = Double(message.tst)
        horizon = Double(message.ms ?? LocationMessage.defaultMaxSilence)
        distortion = 1e-4 * (1 + abs(tan(message.lat * .pi / 180)))
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
/// than `maxSilence` stops moving on dashboards before then and needs no `T` report.
struct PredictionGuard: Sendable {
    let epsilon: Double
    let maxSilence: Int
    private(set) var display: DisplayTracker?

    init(epsilon: Double, maxSilence: Int) {
        self.epsilon = epsilon
        self.maxSilence = maxSilence
    }

    /// The trigger that makes `fix` worth reporting, or `nil` to stay silent.
    func trigger(for fix: Fix) -> Trigger? {
        guard let display else { return .firstPublish }
        if display.misses(fix, by: epsilon) { return .moving }
        if display.isMoving, display.horizon >= Double(maxSilence),
           fix.time.timeIntervalSince1970 - display.time >= Double(maxSilence) {
            return .timePassed
        }
        return nil
    }

    /// Whether dashboards are extrapolating the last message.
    var isMoving: Bool { display?.isMoving ?? false }

    /// Builds the report for `fix` with `velocity` (nil or zero holds), turning a `t` or `T` into
    /// `k` or `v` when the display stops or starts moving, and remembers what dashboards will show.
    /// A moving report carries `horizon` (clamped to 1...`maxSilence`) as its `ms`, or
    /// `maxSilence` when `horizon` is nil.
    mutating func report(_ fix: Fix, trigger: Trigger, velocity: Velocity?, horizon: Int? = nil) -> Report {
        let velocity = velocity.flatMap { $0 == .zero ? nil : $0 }
        var trigger = trigger
        if trigger == .moving || trigger == .timePassed, let display {
            if display.isMoving, velocity == nil { trigger = .becameStationary }
            if !display.isMoving, velocity != nil { trigger = .startedMoving }
        }
        let ms = horizon.map { min(max($0, 1), maxSilence) } ?? maxSilence
        let report = Report(fix: fix, trigger: trigger, velocity: velocity, maxSilence: velocity == nil ? nil : ms)
        display = DisplayTracker(message: LocationMessage(report: report, tid: "--"))
        return report
    }
}

/// Checks the parameters the predicting policies share.
func validatePrediction(epsilon: Double, maxSilence: Int) throws(PolicySettingsError) {
    try requirePositive(epsilon, "epsilon")
    guard maxSilence > 0 else { throw .notPositive(parameter: "max-silence", value: Double(maxSilence)) }
}
