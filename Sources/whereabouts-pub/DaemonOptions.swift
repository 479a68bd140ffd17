import ArgumentParser
import CommandLineDialect
import CommandLineSupport
import WhereaboutsCore

/// The outbox, profiles, battery, metrics and logging.
struct DaemonOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The outbox file (SQLite). Defaults to outbox-<user>-<device>.sqlite in $STATE_DIRECTORY, else $XDG_STATE_HOME/whereabouts, else ~/.local/state/whereabouts.",
        valueName: "path"))
    var outbox: String?

    @Option(help: "The most reports the outbox keeps while the broker is unreachable; beyond it the oldest are dropped, logged and counted.")
    var outboxMax: Int = 100_000

    @Option(help: ArgumentHelp("How many seconds a shutdown may spend publishing what is left in the outbox.", valueName: "seconds"))
    var drainTimeout: Double = 10

    @OptionGroup var publishTimeout: PublishTimeoutOption

    @Option(help: ArgumentHelp(
        "How many outbox reports may be published and awaiting the broker's acknowledgement at once (1 sends one at a time).",
        valueName: "count"))
    var maxInFlight: Int = 20

    @Option(help: ArgumentHelp(
        "With a subscriber that confirms receipts: how many seconds an acknowledged report may wait for its receipt before it is published again (doubling, up to 16 times, while no receipt comes). See docs/receipts.md.",
        valueName: "seconds"))
    var receiptTimeout: Double = 30

    // Optional, with its default in the text: ArgumentParser would show an `Int`-backed
    // enumeration's default as its raw value ("default: 2").
    @Option(help: "The profile to start in (default: active):")
    var profile: MonitoringMode?

    @Option(help: ArgumentHelp("The battery level in percent at or below which the significant profile is forced while unplugged.", valueName: "percent"))
    var batteryLow: Int = 20

    @Option(help: ArgumentHelp("How many percent above --battery-low the level must climb before the requested profile returns.", valueName: "percent"))
    var batteryHysteresis: Int = 10

    @Option(help: ArgumentHelp("Seconds between battery readings.", valueName: "seconds"))
    var batteryInterval: Double = 60

    @Option(help: ArgumentHelp("The folder of power supplies to read the battery from.", valueName: "path"))
    var powerSupplyPath: String = "/sys/class/power_supply"

    @Option(help: "Serve Prometheus metrics on this TCP port at /metrics. Off when not given.")
    var metricsPort: Int?

    @Option(help: "The address the metrics port listens on.")
    var metricsAddress: String = "127.0.0.1"

    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp(
        "A YAML config file whose keys are these long flags without the dashes (see docs/publisher.md). Flags on the command line override it.",
        valueName: "path"))
    var config: String?

    /// The config-file keys of these flags (`config` itself is none).
    static let configKeys: [ConfigKey] = [
        ConfigKey("outbox", .string),
        ConfigKey("outbox-max", .integer),
        ConfigKey("drain-timeout", .number),
        ConfigKey("max-in-flight", .integer),
        ConfigKey("receipt-timeout", .number),
        .word("profile", MonitoringMode.self),
        ConfigKey("battery-low", .integer),
        ConfigKey("battery-hysteresis", .integer),
        ConfigKey("battery-interval", .number),
        ConfigKey("power-supply-path", .string),
        ConfigKey("metrics-port", .integer),
        ConfigKey("metrics-address", .string),
    ] + PublishTimeoutOption.configKeys + LoggingOptions.configKeys
}
