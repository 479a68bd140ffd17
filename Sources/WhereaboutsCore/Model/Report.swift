
/// A fix that a reporting policy decided to send, with the reason and the velocity a dashboard
/// should extrapolate it with.
public struct Report: Sendable, Hashable, Codable {
    /// The fix being reported.
    public var fix: Fix
    /// Why it is reported.
    public var trigger: Trigger
    /// The velocity a dashboard extrapolates with (SPEC §5 `predict`), or `nil` to hold the position.
    public var velocity: Velocity?
    /// How many seconds a dashboard may extrapolate this report (the wire's `ms`), when the policy
    /// that made it bounds its error with that horizon; `nil` leaves it to the publisher.
    public var maxSilence: Int?
    /// The turn rate (degrees per second, counter-clockwise positive) a dashboard turns the
    /// velocity at while it extrapolates (the wire's `tr`); `nil` for a straight line.
    public var turnRate: Double?

    /// Creates a report.
    public init(fix: Fix, trigger: Trigger, velocity: Velocity? = nil, maxSilence: Int? = nil, turnRate: Double? = nil) {
        self.turnRate = turnRate
        self.fix = fix
        self.trigger = trigger
        self.velocity = velocity
        self.maxSilence = maxSilence
    }
}
