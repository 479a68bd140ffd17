import Logging
import ServiceLifecycle
import WhereaboutsMQTT

/// Builds the subscriber's services around one MQTT client and runs them in one service group,
/// as ``PublisherApp`` does for the publisher; `whereabouts-sub run` only parses and calls it.
///
/// Order (started first to last, stopped in reverse): the MQTT connection, the history writer
/// and its intake gate (with `--history`: ``HistoryIntakeGate``), the subscriber itself
/// (ingest, view publishing, circles-file reload, status file), then the `services` the caller
/// adds (the web dashboard). So on SIGTERM or SIGINT the dashboard stops first, then ingest and
/// view publishing, and last the connection sends DISCONNECT (so the broker publishes no will and
/// keeps the persistent session for the next start).
///
/// The first connection is made before the group starts, so a broker that is unreachable or
/// refuses the login ends `run()` at once with the client's `MQTTError`; later outages are
/// bridged by the client's reconnects.
package struct SubscriberApp: Sendable {
    /// The view store the subscriber feeds (and the dashboard reads).
    package let store: CircleViewStore
    /// The client configuration (``clientConfiguration(_:)`` is applied).
    package let mqtt: MQTTConfiguration
    /// Topics, intervals, files.
    package let configuration: SubscriberConfiguration
    /// Services that run after the subscriber and stop before it (the dashboard).
    package let services: [any Service]
    /// Where the subscriber logs.
    package let logger: Logger
    /// The history writer, when a history is kept: it runs after the connection and before the
    /// subscriber, so on shutdown it commits what ingest handed over last.
    package let history: HistoryWriter?

    /// Creates the app; nothing connects until ``run(onConnected:)``.
    package init(
        store: CircleViewStore, mqtt: MQTTConfiguration, configuration: SubscriberConfiguration,
        services: [any Service] = [], history: HistoryWriter? = nil, logger: Logger
    ) {
        self.history = history
        self.store = store
        self.mqtt = Self.clientConfiguration(mqtt)
        self.configuration = configuration
        self.services = services
        self.logger = logger
    }

    /// `configuration` as the subscriber's client uses it: a persistent session (the caller
    /// gives the stable client id), and PUBACKs coalesced while messages pour in
    /// (``MQTTConfiguration/coalescesAcknowledgementsDuringBursts``): the subscriber mostly
    /// receives, and sends one PUBACK per message. Measured in BENCHMARKS.md ("Subscriber").
    package static func clientConfiguration(_ configuration: MQTTConfiguration) -> MQTTConfiguration {
        var configuration = configuration
        configuration.cleanSession = false
        configuration.coalescesAcknowledgementsDuringBursts = true
        return configuration
    }

    /// Connects, then runs every service until graceful shutdown (SIGTERM, SIGINT) or until one
    /// fails; disconnects last in either case. `onConnected` runs once the broker accepted the
    /// connection, before the services start.
    package func run(onConnected: @Sendable (MQTTClient) async throws -> Void = { _ in }) async throws {
        let client = MQTTClient(configuration: mqtt, logger: logger)
        var configuration = configuration
        if configuration.receipts, configuration.receiptID == nil { configuration.receiptID = mqtt.clientID }
        // Before connecting: it opens the message stream, so the persistent session's backlog is kept.
        // With a history: no messages are taken from the broker while it cannot be written.
        let gate = history.map { HistoryIntakeGate(client: client, store: $0.store, logger: logger) }
        // On NATS what the subscriber publishes goes over connections of its own (PublishingConnections).
        let publishing = PublishingConnections(
            main: client,
            publishers: configuration.brokerKind == .nats ? PublishingConnections.publishers(for: mqtt, logger: logger) : [])
        let subscriber = SubscriberService(
            store: store, connection: publishing, configuration: configuration, logger: logger, history: history,
            onSubscribed: gate.map { gate in { @Sendable in gate.subscribed() } })
        try await client.connect()
        let connection = MQTTConnectionService(client: client)
        do {
            try await onConnected(client)
            try publishing.start()
            let republishing = ViewsAfterReconnect(publishing: publishing, store: store)
            let all: [any Service] = [connection] + (history.map { [$0] } ?? []) + (gate.map { [$0] } ?? []) + [subscriber, republishing] + services
            let group = ServiceGroup(configuration: .init(
                services: all.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        } catch {
            await publishing.disconnect()
            await client.disconnect()
            throw error
        }
        await publishing.disconnect()
        await client.disconnect()
    }
}
