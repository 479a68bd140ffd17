import ArgumentParser
import CommandLineSupport
import Dashboard
import Foundation
import Logging
import Subscriber
import SystemSupport
import WhereaboutsMQTT

/// Everything `whereabouts-sub run` starts from, resolved and checked from its options (the way
/// `whereabouts-pub` resolves its options into a `PublisherLaunch`): `run()` only builds the parts.
struct SubscriberLaunch {
    /// The circles file, loaded and checked for the broker.
    var circles: CirclesFile
    /// The circles this instance owns.
    var shard: Shard
    /// The client configuration (`--broker` and its flags).
    var mqtt: MQTTConfiguration
    /// The subscriber's configuration: topics, view rules, status file, receipts.
    var configuration: SubscriberConfiguration
    /// The location history file and its retention, with `--history`.
    var history: (path: String, retention: HistoryRetention)?
    /// The dashboard, with `--http-port` (its login is read at start, from `--users`).
    var dashboard: DashboardConfiguration?
    /// The log level.
    var logLevel: Logger.Level
}

extension RunCommand {
    /// Checks every option together and builds the launch value; each problem is a
    /// `ValidationError` naming the flag (which is also the config key).
    func resolve() throws -> SubscriberLaunch {
        if let httpPort, !(1...65535).contains(httpPort) { throw ValidationError("--http-port must be in 1...65535.") }
        guard viewInterval > 0, viewInterval.isFinite else { throw ValidationError("--view-interval must be above 0 seconds.") }
        guard staleTimeout > 0, staleTimeout.isFinite else { throw ValidationError("--stale-timeout must be above 0 seconds.") }
        guard trailLength >= 1 else { throw ValidationError("--trail-length must be at least 1.") }
        guard trailMinutes >= 0 else { throw ValidationError("--trail-minutes must not be negative.") }
        guard maxPayload >= 256 else { throw ValidationError("--max-payload must be at least 256 bytes.") }
        guard futureTolerance >= 0 else { throw ValidationError("--future-tolerance must not be negative.") }
        guard maxAccuracy >= 0 else { throw ValidationError("--max-accuracy must not be negative (0 accepts any accuracy).") }
        guard maxSpeed >= 0, maxSpeed.isFinite else { throw ValidationError("--max-speed must not be negative (0 switches the check off).") }
        guard liveWindow >= 0, liveWindow.isFinite else { throw ValidationError("--live-window must not be negative.") }
        guard overdueGrace >= 0, overdueGrace <= 86_400 else { throw ValidationError("--overdue-grace must be 0 to 86400 seconds.") }
        guard goneAfterDays > 0, goneAfterDays <= 3_650 else { throw ValidationError("--gone-after-days must be above 0 and at most 3650.") }
        if let stateFile, stateFile.isEmpty { throw ValidationError("--state-file must name a file, or be `none`.") }
        let shard: Shard
        do { shard = try Shard(parsing: self.shard) } catch { throw ValidationError(error.description) }
        guard historyDays >= 0 else { throw ValidationError("--history-days must not be negative (0 keeps locations for ever).") }
        if let historyMaxMb, historyMaxMb < 1 { throw ValidationError("--history-max-mb must be at least 1.") }
        let circleDays = try Self.circleDays(historyCircleDays)
        if history == nil, historyCircleDays != nil || historyMaxMb != nil {
            throw ValidationError("--history-circle-days and --history-max-mb need --history FILE.")
        }
        if let history, history.isEmpty { throw ValidationError("--history must name a file.") }
        let circles: CirclesFile
        do {
            circles = try CirclesFile.load(path: self.circles)
            try circles.check(for: brokerOptions.brokerKind)
        } catch {
            throw ValidationError("The circles file \(self.circles) is not valid: \(error)")
        }

        let settings = ViewSettings(
            staleTimeout: staleTimeout, trailLength: trailLength, trailDuration: trailMinutes * 60,
            futureTolerance: futureTolerance, maxPayloadBytes: maxPayload, liveWindow: liveWindow,
            placeRules: placeRules.subscriber,
            overdueGrace: overdueGrace, goneAfter: goneAfterDays * 86_400,
            maxAccuracy: maxAccuracy > 0 ? maxAccuracy : nil, maxImpliedSpeed: maxSpeed > 0 ? maxSpeed : nil)
        let defaultClientID = shard.count == 1 ? "whereabouts-sub" : "whereabouts-sub-\(shard.index)-of-\(shard.count)"
        let mqtt = try brokerOptions.mqttConfiguration(defaultClientID: defaultClientID)
        if receipts {
            // The client id is the last level of the receipts' topic (docs/receipts.md; '/', '+'
            // and '#' are replaced there): NATS closes the connection of a client that publishes
            // a topic with '.', so every receipt would fail and every device keep resending.
            try brokerOptions.checkTopicLevel(mqtt.clientID, what: "--client-id (a level of the receipts' topic)")
        }
        var configuration = SubscriberConfiguration(
            viewPrefix: prefixes.viewPrefix, topicPrefix: prefixes.topicPrefix, viewInterval: viewInterval, settings: settings,
            circlesPath: self.circles, statusPath: Self.statusPath(stateFile, clientID: mqtt.clientID))
        configuration.brokerKind = brokerOptions.brokerKind
        configuration.receipts = receipts
        configuration.publishTimeout = publishTimeout.duration
        // NATS makes each QoS 1 subscription a JetStream consumer: two wildcards, not two per member.
        if brokerOptions.brokerKind == .nats { configuration.subscription = .wildcard }
        let retention = HistoryRetention(days: historyDays, circleDays: circleDays, maxBytes: historyMaxMb.map { $0 * 1_048_576 })
        return SubscriberLaunch(
            circles: circles, shard: shard, mqtt: mqtt, configuration: configuration,
            history: history.map { ($0, retention) },
            dashboard: httpPort.map { dashboardOptions.configuration(port: $0) },
            logLevel: logging.logLevel)
    }

    /// The `--history-circle-days` pairs by circle id.
    static func circleDays(_ option: String?) throws -> [String: Int] {
        guard let option else { return [:] }
        var days: [String: Int] = [:]
        for pair in option.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let value = Int(parts[1]), value >= 0 else {
                throw ValidationError("--history-circle-days: \"\(pair)\" is not id=days with days 0 or more (family=365,work=7).")
            }
            days[parts[0]] = value
        }
        return days
    }

    /// The status file: the option's value, `nil` for `none`, or the default location (whose
    /// directory `run()` creates).
    static func statusPath(_ option: String?, clientID: String) -> String? {
        if option == "none" { return nil }
        if let option { return option }
        return PathText.appending("\(StateDirectory.fileName(clientID)).status.json", to: StateDirectory.resolve())
    }
}
