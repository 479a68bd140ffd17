/// The decision behind ``MQTTConfiguration/coalescesAcknowledgementsDuringBursts``, without the
/// socket: it looks at the arrival rate one window of at least a millisecond at a time and says
/// when Nagle's algorithm should go on (a burst) or off again (`TCP_NODELAY`). A value owned by
/// the session thread.
struct AcknowledgementCoalescing {
    /// The rate, in messages per millisecond, at or above which a window counts as a burst.
    let threshold: Double
    private var windowStart: ContinuousClock.Instant
    private var deliveredAtStart: UInt64
    /// Whether coalescing is on (the last decision).
    private(set) var isOn = false

    /// Starts the first window at `now`, with `delivered` messages delivered so far.
    init(threshold: Int = MQTTConfiguration.burstMessagesPerMillisecond, now: ContinuousClock.Instant, delivered: UInt64) {
        self.threshold = Double(threshold)
        windowStart = now
        deliveredAtStart = delivered
    }

    /// Ends the current window if it has lasted 1 ms, reading the running count of delivered
    /// messages only then; returns the new setting when it changes (`true`: coalesce), `nil`
    /// otherwise.
    mutating func update(now: ContinuousClock.Instant, delivered readDelivered: () -> UInt64) -> Bool? {
        let elapsed = now - windowStart
        guard elapsed >= .milliseconds(1) else { return nil }
        let delivered = readDelivered()
        let rate = Double(delivered &- deliveredAtStart) / (elapsed / .milliseconds(1))
        windowStart = now
        deliveredAtStart = delivered
        let burst = rate >= threshold
        guard burst != isOn else { return nil }
        isOn = burst
        return burst
    }
}
