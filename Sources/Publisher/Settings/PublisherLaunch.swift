#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PositionSources
import WhereaboutsCore
import WhereaboutsMQTT

/// Everything `whereabouts-pub` resolved from its flags and config file, checked and ready to run.
package struct PublisherLaunch: Sendable {
    /// The pipeline settings (identity, topics, QoS, drain timeout).
    package var settings: PublisherSettings
    /// The position source, with its replay speed (`nil` for a live source).
    package var source: PositionSourceSpec
    /// The main connection's client configuration (broker, client id, credentials, keep-alive,
    /// TLS); the publisher adds its own rules (``PublisherApp``) and derives the presence
    /// connection from it.
    package var mqtt: MQTTConfiguration
    /// The outbox file.
    package var outboxPath: String
    /// The outbox cap in entries.
    package var outboxMax: Int
    /// The profile to start in.
    package var initialProfile: MonitoringMode
    /// The low-battery rule.
    package var lowBattery: LowBatteryRule
    /// Time between battery readings.
    package var batteryInterval: Duration
    /// The power-supply folder.
    package var powerSupplyPath: String
    /// The metrics port, or `nil` for no metrics server.
    package var metricsPort: Int?
    /// The metrics listen address.
    package var metricsAddress: String
    /// The log level.
    package var logLevel: Logger.Level
    /// Makes the policies of both profiles.
    package var policies: ProfilePolicies
    /// Makes the rejection filters.
    package var makeFilter: @Sendable () -> FixFilter
    /// The places of the `--places` file (none by default).
    package var places: [Place] = []
    /// The device's place rules: the hysteresis margin and default dwell (`--place-margin`,
    /// `--place-dwell`) with the device's leave rule.
    package var placeRules = PlaceRules.device()
    /// Where waypoints set by command and the inside state are kept; `nil` for
    /// `<outbox>.places.json`. `whereabouts-pub` passes `places-<user>-<device>.json` beside the outbox.
    package var placesStorePath: String? = nil

    /// Creates a launch description; the executable fills every field.
    package init(
        settings: PublisherSettings, source: PositionSourceSpec, mqtt: MQTTConfiguration,
        outboxPath: String, outboxMax: Int, initialProfile: MonitoringMode, lowBattery: LowBatteryRule,
        batteryInterval: Duration, powerSupplyPath: String, metricsPort: Int?, metricsAddress: String,
        logLevel: Logger.Level, policies: ProfilePolicies, makeFilter: @escaping @Sendable () -> FixFilter
    ) {
        self.settings = settings
        self.source = source
        self.mqtt = mqtt
        self.outboxPath = outboxPath
        self.outboxMax = outboxMax
        self.initialProfile = initialProfile
        self.lowBattery = lowBattery
        self.batteryInterval = batteryInterval
        self.powerSupplyPath = powerSupplyPath
        self.metricsPort = metricsPort
        self.metricsAddress = metricsAddress
        self.logLevel = logLevel
        self.policies = policies
        self.makeFilter = makeFilter
    }
}
