import Subscriber
import Foundation
import Logging
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// A `SubscriberService` running against a real broker in a child task, as `whereabouts-sub`
/// runs it: persistent session, stable client id, the service created before connecting.
final class RunningSubscriber: Sendable {
    let store: CircleViewStore
    let client: MQTTClient
    private let task: Task<Void, any Error>

    private init(store: CircleViewStore, client: MQTTClient, task: Task<Void, any Error>) {
        self.store = store
        self.client = client
        self.task = task
    }

    static func start(
        broker: Broker, file: CirclesFile, clientID: String = "whereabouts-sub-test",
        settings: ViewSettings = ViewSettings(), viewInterval: Double = 0.05, circlesPath: String? = nil,
        credentials: MQTTConfiguration.Credentials? = nil, shard: Shard = .all
    ) async throws -> RunningSubscriber {
        var configuration = broker.clientConfiguration(clientID: clientID, credentials: credentials)
        configuration.cleanSession = false
        let logger = Logger.test("sub")
        let client = MQTTClient(configuration: configuration, logger: logger)
        let store = CircleViewStore(circles: file, shard: shard, settings: settings, viewInterval: viewInterval, logger: logger)
        let (subscribedStream, subscribed) = AsyncStream.makeStream(of: Void.self)
        let service = SubscriberService(  // before connect, as whereabouts-sub does
            store: store, connection: client,
            configuration: SubscriberConfiguration(viewInterval: viewInterval, settings: settings, circlesPath: circlesPath,
                                                   reloadPollInterval: 0.1),
            logger: logger, onSubscribed: { subscribed.yield() })
        try await client.connect()
        let task = Task { try await service.run() }
        // 30 s, as `waitUntil`'s default: on two cores busy with the whole suite this has taken more than 10.
        try await withTimeout(.seconds(30), "the subscriptions") {
            for await _ in subscribedStream { return }
        }
        return RunningSubscriber(store: store, client: client, task: task)
    }

    /// Stops the service and disconnects cleanly (the broker keeps the persistent session).
    func stop() async {
        task.cancel()
        _ = try? await task.value
        await client.disconnect()
    }
}

/// A dashboard-like MQTT client that records every circle view and event it receives.
actor ViewProbe {
    private(set) var views: [String: CircleView] = [:]
    private(set) var events: [CircleEvent] = []
    private(set) var messages: [MQTTMessage] = []
    private var version = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    nonisolated let client: MQTTClient
    private var consumer: Task<Void, Never>?

    init(client: MQTTClient) {
        self.client = client
    }

    /// Connects a probe to `broker` and subscribes to `filters` (views and events by default).
    static func start(
        broker: Broker, filters: [String] = ["whereabouts/circles/+/view", "whereabouts/circles/+/events"],
        credentials: MQTTConfiguration.Credentials? = nil
    ) async throws -> ViewProbe {
        let client = MQTTClient(
            configuration: broker.clientConfiguration(clientID: "probe-\(UUID().uuidString.prefix(8))", credentials: credentials),
            logger: .test("probe"))
        let probe = ViewProbe(client: client)
        let messages = client.messages
        await probe.consume(messages)
        try await client.connect()
        try await client.subscribe(to: filters.map { (filter: $0, qos: QoS.atLeastOnce) })
        return probe
    }

    private func consume(_ messages: MQTTMessages) {
        consumer = Task { [weak self] in
            for await message in messages { await self?.record(message) }
        }
    }

    private func record(_ message: MQTTMessage) {
        messages.append(message)
        let decoder = JSONDecoder()
        if message.topic.hasSuffix("/view"), let view = try? decoder.decode(CircleView.self, from: message.payload) {
            views[view.circle.id] = view
        } else if message.topic.hasSuffix("/events"), let event = try? decoder.decode(CircleEvent.self, from: message.payload) {
            events.append(event)
        }
        version += 1
        let woken = waiters
        waiters = []
        for waiter in woken { waiter.resume() }
    }

    /// What the probe has recorded so far.
    struct Snapshot: Sendable {
        var views: [String: CircleView]
        var events: [CircleEvent]
        var messages: [MQTTMessage]
    }

    private func snapshot() -> (Snapshot, Int) {
        (Snapshot(views: views, events: events, messages: messages), version)
    }

    private func waitForChange(after seen: Int) async {
        guard version == seen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func wakeAll() {
        let woken = waiters
        waiters = []
        for waiter in woken { waiter.resume() }
    }

    /// Waits (at most `timeout`) until `extract` returns a value from the recorded views/events.
    func wait<T: Sendable>(
        _ what: String, timeout: Duration = .seconds(15), _ extract: @escaping @Sendable (Snapshot) -> T?
    ) async throws -> T {
        try await withTimeout(timeout, what) {
            try await withTaskCancellationHandler {
                while true {
                    try Task.checkCancellation()
                    let (snapshot, seen) = await self.snapshot()
                    if let value = extract(snapshot) { return value }
                    await self.waitForChange(after: seen)
                }
            } onCancel: {
                Task { await self.wakeAll() }
            }
        }
    }

    /// The member's entry in the newest view of `circle`, when `predicate` holds for it.
    func member(
        _ circle: String, _ user: String, _ device: String, timeout: Duration = .seconds(15),
        where predicate: @escaping @Sendable (MemberView) -> Bool
    ) async throws -> MemberView {
        try await wait("\(user)/\(device) in \(circle)", timeout: timeout) { probe in
            probe.views[circle]?.member(user: user, device: device).flatMap { predicate($0) ? $0 : nil }
        }
    }

    func stop() async {
        consumer?.cancel()
        await client.disconnect()
    }
}

/// A broker, a running subscriber, a view probe and a publishing client: what most real-broker
/// tests need, started and stopped together.
struct Rig {
    let broker: Broker
    let subscriber: RunningSubscriber
    let probe: ViewProbe
    let publisher: MQTTClient

    static func start(file: CirclesFile, settings: ViewSettings = ViewSettings()) async throws -> Rig {
        let broker = try await Broker.start()
        let subscriber = try await RunningSubscriber.start(broker: broker, file: file, settings: settings)
        let probe = try await ViewProbe.start(broker: broker)
        let publisher = try await MQTTClient.connected(to: broker)
        return Rig(broker: broker, subscriber: subscriber, probe: probe, publisher: publisher)
    }

    func stop() async {
        await publisher.disconnect()
        await probe.stop()
        await subscriber.stop()
        await broker.stop()
    }
}
