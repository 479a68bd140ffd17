#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ServiceLifecycle
import WhereaboutsCore
import WhereaboutsMQTT

/// The publisher's two MQTT connections, run as a service.
///
/// - The main connection publishes locations and receives commands on `<base>/cmd`. Its will is
///   OwnTracks' `{"_type":"lwt","tst":<connect time>}` on the base topic, QoS 1, not retained.
/// - A second, small connection (`<client id>-presence`) exists only for its will: a retained
///   `offline` presence on `<base>/presence`. After every (re)connect it publishes the retained
///   `online` presence, since the broker may have fired the will in between.
/// - With `--secret-file`, every payload it publishes is encrypted (``PayloadSealer``); the two
///   wills are not. With a card, it publishes the card retained on `<base>/info` after each connect.
///
/// On graceful shutdown (last in the service group, after the drainer) it publishes `offline`
/// presence and disconnects both cleanly, so the broker sends no will.
///
/// As a ``BrokerConnection`` it is the main connection: the drainer publishes, the command
/// listener receives, and the connection facts (up since, fresh session) are the main client's.
final class MQTTPublishConnection: BrokerConnection, Service {
    private let client: MQTTClient
    private let presenceClient: MQTTClient
    private let settings: PublisherSettings
    private let startedAt: Int
    private let logger: Logger
    private let sealer: PayloadSealer
    private let doorbell: Doorbell?
    private let receipts: ReceiptBook?

    /// Creates both clients from `base` (host, port, credentials, TLS), not yet connected.
    ///
    /// - Parameter doorbell: Rung when a connection starts a new broker session, so that an idle
    ///   drainer wakes up to publish the newest report again.
    /// - Parameter receipts: Subscribed to its receipt topic after every connect (docs/receipts.md).
    init(
        base: MQTTConfiguration, settings: PublisherSettings, startedAt: Date = Date(), doorbell: Doorbell? = nil,
        receipts: ReceiptBook? = nil, logger: Logger
    ) {
        self.doorbell = doorbell
        self.receipts = receipts
        let start = Int(startedAt.timeIntervalSince1970)
        self.startedAt = start
        self.settings = settings
        self.logger = logger
        sealer = PayloadSealer(key: settings.encryptionKey)
        var main = base
        main.will = MQTTConfiguration.Will(
            topic: settings.topicBase, payload: ReportEncoder.encode(LastWillMessage(tst: start)),
            qos: .atLeastOnce, retain: false)
        var presence = base
        presence.clientID = base.clientID.isEmpty ? "" : base.clientID + "-presence"
        presence.credentials = Self.presenceCredentials(base)
        presence.cleanSession = true
        presence.will = MQTTConfiguration.Will(
            topic: settings.presenceTopic,
            payload: ReportEncoder.encode(PresenceMessage(state: .offline, since: start, tst: start)),
            qos: .atLeastOnce, retain: true)
        client = MQTTClient(configuration: main, logger: logger)
        presenceClient = MQTTClient(configuration: presence, logger: logger)
    }

    /// The presence connection's login. With one broker account per connection (mosquitto's
    /// dynamic security, `whereabouts-sub dynsec`: the user name is the client id, and the account
    /// only accepts that id), the presence connection logs in as `<user name>-presence` with the
    /// same password; otherwise it uses the main connection's account.
    static func presenceCredentials(_ base: MQTTConfiguration) -> MQTTConfiguration.Credentials? {
        guard let credentials = base.credentials, !base.clientID.isEmpty, credentials.username == base.clientID else {
            return base.credentials
        }
        return .init(username: credentials.username + "-presence", password: credentials.password)
    }

    // MARK: BrokerConnection

    /// The main connection's messages (the commands on `<base>/cmd`).
    var messages: MQTTMessages { client.messages }

    /// Publishes on the main connection, encrypted when a secret is configured.
    func publish(to topic: String, payload: Data, qos: QoS, retain: Bool, timeout: Duration?) async throws {
        try await client.publish(to: topic, payload: sealer.seal(payload), qos: qos, retain: retain, timeout: timeout)
    }

    /// Subscribes on the main connection.
    func subscribe(to filters: [String], qos: QoS, timeout: Duration?) async throws {
        try await client.subscribe(to: filters, qos: qos, timeout: timeout)
    }

    /// Unsubscribes on the main connection.
    func unsubscribe(from filters: [String], timeout: Duration?) async throws {
        try await client.unsubscribe(from: filters, timeout: timeout)
    }

    /// When the main connection came up, or `nil` while it is down.
    func connectedSince() async -> Date? {
        await client.connectedSince()
    }

    /// Waits until the main connection is up (woken by its state updates), at most `timeout`.
    func waitUntilConnected(timeout: Duration) async -> Bool {
        await client.waitUntilConnected(timeout: timeout)
    }

    /// Whether the main connection started a new broker session not yet answered; clears it.
    func takeFreshSession() async -> Bool {
        await client.takeFreshSession()
    }

    /// The main connection's publishes still held after their caller gave up.
    func publishesHeldAfterGiveUp() async -> Int {
        await client.publishesHeldAfterGiveUp()
    }

    // MARK: Service

    /// Connects both clients (retrying in the background while the broker is unreachable), logs
    /// every state change, keeps presence online, and on graceful shutdown says offline and
    /// disconnects.
    func run() async throws {
        // Subscribe to the state streams before starting, so the first `connected` is not missed.
        let mainStates = client.stateUpdates
        let presenceStates = presenceClient.stateUpdates
        try client.start()
        try presenceClient.start()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.followMainState(mainStates) }
            group.addTask { await self.followPresenceState(presenceStates) }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        do {
            try await publishPresence(.offline, timeout: .seconds(2))
        } catch {
            logger.warning("Could not publish offline presence; the broker sends it as the will.", metadata: ["whereabouts.error": "\(error)"])
        }
        await client.disconnect()
        await presenceClient.disconnect()
        logger.info("Disconnected cleanly.")
    }

    private func followMainState(_ states: MQTTConnectionStates) async {
        var up = false  // so that one outage logs one warning
        for await state in states {
            switch state {
            case .connected:
                up = true
                logger.info("Connected.", metadata: ["whereabouts.mqtt.state": "\(state)"])
                // The client set its fresh-session flag with the state; wake an idle drainer (also
                // with a session present: reports acknowledged just before a node died may have to
                // go out again, RecentAcknowledgements).
                doorbell?.ring()
                do {
                    try await client.subscribe(to: settings.commandTopic, qos: settings.subscriptionQoS, timeout: .seconds(10))
                } catch {
                    logger.warning("Could not subscribe to the command topic.", metadata: ["whereabouts.error": "\(error)"])
                }
                await subscribeToReceipts()
                await publishCard()
            case .disconnected, .reconnecting:
                if up { logger.warning("Disconnected.", metadata: ["whereabouts.mqtt.state": "\(state)"]) }
                up = false
            case .connecting:
                break
            }
        }
    }

    /// Subscribes to the device's receipt topic (retained receipts arrive at once). A refused or
    /// failed subscription is logged; the book then decides "broker only" after its wait, as when
    /// no subscriber confirms receipts, and the next connect tries again.
    private func subscribeToReceipts() async {
        guard let receipts else { return }
        do {
            try await client.subscribe(to: receipts.filter, qos: settings.subscriptionQoS, timeout: .seconds(10))
        } catch {
            logger.warning("Could not subscribe to the receipt topic.", metadata: [
                "whereabouts.topic": "\(receipts.filter)", "whereabouts.error": "\(error)",
            ])
        }
        receipts.subscribed()
    }

    /// Publishes the card (if any) retained on `<base>/info`, after every connect: the broker may
    /// have lost its retained messages meanwhile. A failure is logged; the next connect retries.
    private func publishCard() async {
        guard let card = settings.card else { return }
        do {
            try await publish(
                to: settings.infoTopic, payload: ReportEncoder.encode(card), qos: max(.atLeastOnce, settings.qos),
                retain: true, timeout: settings.publishTimeout)
            logger.debug("Card published.", metadata: ["whereabouts.topic": "\(settings.infoTopic)"])
        } catch {
            logger.warning("Could not publish the card.", metadata: ["whereabouts.error": "\(error)"])
        }
    }

    private func followPresenceState(_ states: MQTTConnectionStates) async {
        for await state in states {
            guard case .connected = state else { continue }
            do {
                try await publishPresence(.online, timeout: .seconds(10))
            } catch {
                logger.warning("Could not publish online presence.", metadata: ["whereabouts.error": "\(error)"])
            }
        }
    }

    /// Publishes `state` (since the start, stamped now) retained on `<base>/presence` over the
    /// presence connection, sealed like every payload, at QoS 1 or the configured higher QoS. An
    /// online presence promises the next message within the heartbeat interval (`due`).
    private func publishPresence(_ state: PresenceMessage.State, timeout: Duration) async throws {
        let now = Int(Date().timeIntervalSince1970)
        let message = PresenceMessage(
            state: state, since: startedAt, tst: now, due: state == .online ? now + settings.heartbeat : nil)
        try await presenceClient.publish(
            to: settings.presenceTopic, payload: try sealer.seal(ReportEncoder.encode(message)),
            qos: max(.atLeastOnce, settings.qos), retain: true, timeout: timeout)
    }
}
