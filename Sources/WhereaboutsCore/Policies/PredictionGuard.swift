#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The part that dead reckoning and `bounded` share: keep the last message, report when its
/// displayed position misses a fix by more than `epsilon`, and report at least every
/// `maxSilence` seconds while the display is extrapolating. A message sent with a shorter horizon
/// than `maxSilence` stops moving on dashboards before then and needs no `T` report. No message
/// carries a velocity faster than `maxSpeed`: such a velocity (a jump, a spike) is not sent, so
/// dashboards hold the position instead of extrapolating it at an impossible speed.
package struct PredictionGuard: Sendable {
    let epsilon: Double
    let maxSilence: Int
    let maxSpeed: Double?
    /// What dashboards display from the last message sent; meaningful once `hasDisplay`. Not an
    /// optional: the per-fix check then reads it in place, where unwrapping an optional copied
    /// its 150 bytes for every fix (callgrind, BENCHMARKS.md "Cost").
    private var display = DisplayTracker(message: LocationMessage(tid: "--", tst: 0, lat: 0, lon: 0, acc: 1, ve: nil, vn: nil, ms: nil))
    private var hasDisplay = false

    package init(epsilon: Double, maxSilence: Int, maxSpeed: Double? = nil) {
        self.epsilon = epsilon
        self.maxSilence = maxSilence
        self.maxSpeed = maxSpeed
    }

    /// The trigger that makes `fix` worth reporting, or `nil` to stay silent.
    package func trigger(for fix: Fix) -> Trigger? {
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
    private func missesOwnFix(_ fix: Fix, velocity: Velocity, ms: Int, turnRate: Double?) -> Bool {
        let time = fix.time.timeIntervalSince1970
        let fraction = time - time.rounded(.down)
        guard velocity.speed * fraction > epsilon - 1 else { return false }
        let message = LocationMessage(report: Report(fix: fix, trigger: .moving, velocity: velocity, maxSilence: ms, turnRate: turnRate), tid: "--")
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
    package mutating func report(_ fix: Fix, trigger: Trigger, velocity: Velocity?, horizon: Int? = nil, position: Coordinate? = nil, turnRate: Double? = nil) -> Report {
        var velocity = velocity.flatMap { $0 == .zero || !allowed($0) ? nil : $0 }
        let ms = horizon.map { min(max($0, 1), maxSilence) } ?? maxSilence
        var sent = fix
        if let position, let moving = velocity, keeps(fix, from: position, velocity: moving) {
            sent = fix.moved(to: position)
        } else if let moving = velocity, missesOwnFix(fix, velocity: moving, ms: ms, turnRate: turnRate) {
            velocity = nil
        }
        var trigger = trigger
        if trigger == .moving || trigger == .timePassed, hasDisplay {
            if display.isMoving, velocity == nil { trigger = .becameStationary }
            if !display.isMoving, velocity != nil { trigger = .startedMoving }
        }
        let report = Report(fix: sent, trigger: trigger, velocity: velocity, maxSilence: velocity == nil ? nil : ms,
                            turnRate: velocity == nil ? nil : turnRate)
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
