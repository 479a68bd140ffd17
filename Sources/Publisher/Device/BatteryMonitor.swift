#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceLifecycle

/// Polls the battery, feeds `batt`/`bs` into reports and switches to `significant` while it is low.
struct BatteryMonitor: Service {
    private let reader: BatteryReader
    private let rule: LowBatteryRule
    private let interval: Duration
    private let reporter: Reporter
    private let logger: Logger

    /// Creates the monitor; `interval` is the time between readings.
    init(reader: BatteryReader, rule: LowBatteryRule, interval: Duration, reporter: Reporter, logger: Logger) {
        self.reader = reader
        self.rule = rule
        self.interval = interval
        self.reporter = reporter
        self.logger = logger
    }

    /// Reads the battery every interval until graceful shutdown; ends at once when there is none.
    func run() async throws {
        var rule = self.rule
        guard let first = reader.read() else {
            logger.info("No battery found; battery fields are not sent.", metadata: ["whereabouts.battery.root": "\(reader.root)"])
            return
        }
        var reading = first
        while true {
            let wasLow = rule.isLow
            let low = rule.update(with: reading)
            if low != wasLow {
                logger.info(low ? "Battery low." : "Battery no longer low.", metadata: [
                    "whereabouts.battery.level": "\(reading.level)", "whereabouts.battery.status": "\(reading.status)",
                ])
            }
            await reporter.updateBattery(reading, low: low)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            if Task.isShuttingDownGracefully { return }
            guard let next = reader.read() else { continue }
            reading = next
        }
    }
}
