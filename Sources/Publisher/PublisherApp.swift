#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import Metrics
import Outbox
import PositionSources
import Prometheus
import ServiceLifecycle
import WhereaboutsCore
import WhereaboutsMQTT

/// Builds the publisher's services from a ``PublisherLaunch`` and runs them in one service group.
///
/// Order (started first to last, stopped in reverse): MQTT connections, outbox drainer, command
/// listener, source reader, battery monitor, signal handler, metrics server. So on SIGTERM or
/// SIGINT the reader stops first, then the drainer empties the outbox (up to the drain timeout),
/// then the connections publish offline presence and disconnect. When a recorded source ends, the
/// drainer empties the outbox and ends the group, and the process exits 0.
package struct PublisherApp: Sendable {
    /// What to run.
    package var launch: PublisherLaunch
    /// Where the publisher logs.
    package var logger: Logger

    /// Creates the app.
    package init(launch: PublisherLaunch, logger: Logger) {
        self.launch = launch
        self.logger = logger
    }

    /// Whether a restart should resume the source after the newest committed report: true for a
    /// replayed GPX or NMEA recording (the same file read again), false for live sources and the
    /// simulator (new fixes every run).
    static func resumesRecording(_ spec: PositionSourceSpec) -> Bool {
        guard spec.replay != nil else { return false }
        switch spec.kind {
        case .gpx, .nmea: return true
        case .gpsd, .simulator: return false
        }
    }

    /// Runs until the source ends and the outbox is drained (returns normally), or until SIGTERM/SIGINT.
    package func run() async throws {
        let settings = launch.settings
        let outbox = try Outbox(path: launch.outboxPath, maxEntries: launch.outboxMax, logger: logger)
        let registry = PrometheusCollectorRegistry()
        let metrics = PublisherMetrics(factory: PrometheusMetricsFactory(registry: registry))
        let doorbell = Doorbell()
        let completion = SourceCompletion()
        let resumeAfter = Self.resumesRecording(launch.source) ? try await outbox.newestCommittedTST() : nil
        // The replay hands on what an earlier run committed without waiting; the reporter skips it.
        let (source, clock) = launch.source.makeSource(
            logger: logger, resumeAfter: resumeAfter.map { Date(timeIntervalSince1970: Double($0) + 1) })
        let sourceRejections = SourceRejectionExport(counter: source.rejections, metrics: metrics)
        let promises = PromiseLedger()
        let places = DevicePlaces(
            filePlaces: launch.places, rules: launch.placeRules,
            store: WaypointStore(path: launch.placesStorePath ?? launch.outboxPath + ".places.json", logger: logger), logger: logger)
        if !places.all.isEmpty {
            logger.info("Watching places.", metadata: [
                "whereabouts.places": "\(places.all.count)", "whereabouts.places.inside": "\(places.inside.map(\.name))",
            ])
        }
        let reporter = Reporter(
            settings: settings, filter: launch.makeFilter(), policies: launch.policies,
            initialProfile: launch.initialProfile, outbox: outbox, metrics: metrics, doorbell: doorbell,
            clock: clock, resumeAfter: resumeAfter, promises: promises, places: places, logger: logger)
        let startedAt = Date()
        let receipts = settings.receipts
            ? ReceiptBook(epoch: outbox.epoch, topic: settings.receiptTopic, wait: settings.receiptWait) : nil
        let connection = MQTTPublishConnection(
            base: mqttConfiguration(), settings: settings, startedAt: startedAt, doorbell: doorbell, receipts: receipts,
            logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: connection),
            .init(service: OutboxDrainer(
                outbox: outbox, connection: connection, settings: settings, metrics: metrics, doorbell: doorbell,
                completion: completion, receipts: receipts, logger: logger), successTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: CommandListener(
                messages: connection.messages, topic: settings.commandTopic,
                handler: CommandHandler(
                    reporter: reporter, metrics: metrics, secret: settings.encryptionKey,
                    replies: (connection, settings), logger: logger),
                metrics: metrics, logger: logger)),
            .init(service: SourceReader(source: source, reporter: reporter, doorbell: doorbell, completion: completion, logger: logger),
                  successTerminationBehavior: .ignore),
            .init(service: BatteryMonitor(
                reader: BatteryReader(root: launch.powerSupplyPath), rule: launch.lowBattery, interval: launch.batteryInterval,
                reporter: reporter, logger: logger), successTerminationBehavior: .ignore),
            .init(service: ProfileSignals(reporter: reporter, logger: logger)),
            .init(service: Heartbeat(
                connection: connection, ledger: promises, settings: settings,
                startedAt: Int(startedAt.timeIntervalSince1970), logger: logger)),
        ]
        if let receipts {
            services.append(.init(service: ReceiptListener(messages: connection.messages, book: receipts, doorbell: doorbell)))
        }
        if let port = launch.metricsPort {
            services.append(.init(service: try MetricsService(
                address: launch.metricsAddress, port: port, registry: registry, logger: logger,
                beforeRendering: sourceRejections.sync)))
        }
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = settings.drainTimeout + .seconds(10)
        try await ServiceGroup(configuration: configuration).run()
    }

    /// How the publisher's connections retry: 0.25 s, 0.5 s, 1 s, then every 2 s (minus up to
    /// 20 % jitter) for as long as the broker stays away. So the publisher is back within about
    /// 2 s of the broker's return, whatever the length of the outage, and a broker that stays down
    /// sees one TCP connection attempt per client every 1.6 to 2 s, spread out by the jitter.
    /// (The library default caps at 30 s: after a 30 s outage that meant up to 22 s more without
    /// the device's position.)
    static let reconnectPolicy = MQTTReconnectPolicy(
        initialDelay: .milliseconds(250), maximumDelay: .seconds(2), multiplier: 2, jitter: 0.2)

    private func mqttConfiguration() -> MQTTConfiguration {
        var configuration = launch.mqtt
        configuration.cleanSession = !launch.settings.persistentSession
        // The outbox is the queue: libmosquitto must not keep its own copies of publishes tried
        // while offline (each retry would add one more, all sent on reconnection).
        configuration.queuesWhileDisconnected = false
        configuration.reconnect = Self.reconnectPolicy
        // libmosquitto holds back publishes beyond its own in-flight limit; let the drainer's
        // window through.
        configuration.maxInflightMessages = max(configuration.maxInflightMessages, launch.settings.maxInFlight)
        return configuration
    }
}
