/// One reading of the device's battery, as OwnTracks sends it.
struct BatteryReading: Sendable, Hashable {
    /// OwnTracks' battery status (`bs`).
    enum Status: Int, Sendable, Hashable {
        /// The kernel does not say.
        case unknown = 0
        /// Running on battery.
        case unplugged = 1
        /// Plugged in and charging.
        case charging = 2
        /// Plugged in and full.
        case full = 3
    }

    /// Charge in percent, 0...100.
    var level: Int
    /// Charging state.
    var status: Status

    /// Creates a reading; the level is clamped to 0...100.
    init(level: Int, status: Status) {
        self.level = min(100, max(0, level))
        self.status = status
    }

    /// Whether the device is on external power.
    var isPowered: Bool { status == .charging || status == .full }
}
