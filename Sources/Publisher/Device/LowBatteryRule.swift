/// Decides when the battery is low enough to force the `significant` profile, with hysteresis.
///
/// The battery becomes low when it runs unplugged at or below `threshold` percent, and stops being
/// low when it is plugged in or has climbed to `threshold + hysteresis` percent or more. In
/// between, the previous state holds, so a level that wobbles around the threshold does not switch
/// the profile back and forth.
package struct LowBatteryRule: Sendable, Hashable {
    /// The level (percent) at or below which an unplugged battery is low. Default 20.
    package var threshold: Int
    /// How many percent above the threshold the level must climb before the battery is no longer
    /// low. Default 10.
    package var hysteresis: Int
    /// Whether the battery is currently considered low.
    private(set) var isLow = false

    /// Creates the rule.
    package init(threshold: Int = 20, hysteresis: Int = 10) {
        self.threshold = threshold
        self.hysteresis = hysteresis
    }

    /// Updates the state with a reading and returns whether the battery is now low.
    @discardableResult
    mutating func update(with reading: BatteryReading) -> Bool {
        if reading.isPowered || reading.level >= threshold + hysteresis {
            isLow = false
        } else if reading.level <= threshold {
            isLow = true
        }
        return isLow
    }
}
