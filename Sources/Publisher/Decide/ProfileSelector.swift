import WhereaboutsCore

/// Which reporting profile is in force, from what was asked (command or signal) and the battery.
///
/// A low battery forces `significant`; when the battery recovers, the profile that was last asked
/// for comes back.
struct ProfileSelector: Sendable, Hashable {
    /// The profile last asked for by a command or signal (initially `active`).
    private(set) var requested: MonitoringMode
    /// Whether the battery rule says the battery is low.
    private(set) var batteryLow = false

    /// Starts with `initial` requested and the battery not low.
    init(initial: MonitoringMode = .active) {
        requested = initial
    }

    /// The profile in force.
    var effective: MonitoringMode { batteryLow ? .significant : requested }

    /// Records a request; returns the effective profile before and after.
    mutating func request(_ mode: MonitoringMode) -> (before: MonitoringMode, after: MonitoringMode) {
        let before = effective
        requested = mode
        return (before, effective)
    }

    /// Records the battery state; returns the effective profile before and after.
    mutating func setBatteryLow(_ low: Bool) -> (before: MonitoringMode, after: MonitoringMode) {
        let before = effective
        batteryLow = low
        return (before, effective)
    }
}
