import Subscriber
import Dashboard
import Logging
import ServiceLifecycle
import Testing
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The subscriber and the dashboard in one service group, as `whereabouts-sub --http-port` runs
/// them over a real broker: a persistent session, the subscriber made before its client connects,
/// views every 50 ms, the dashboard on a free port.
struct SubscriberDashboardGroup {
    /// The group: run it in a task, and shut it down gracefully at the end.
    let group: ServiceGroup
    /// The subscriber's client, connected; disconnect it after the group has ended.
    let client: MQTTClient
    private let subscribed: AsyncStream<Void>
    private let ports: AsyncStream<Int>

    /// Makes the services over `circles` and connects the subscriber's client (`clientID`) to `broker`.
    static func connect(broker: Broker, circles: CirclesFile, clientID: String, logger: Logger) async throws -> SubscriberDashboardGroup {
        var configuration = broker.clientConfiguration(clientID: clientID)
        configuration.cleanSession = false
        let client = MQTTClient(configuration: configuration, logger: logger)
        let store = CircleViewStore(circles: circles, viewInterval: 0.05, logger: logger)
        let (subscribed, subscribedSink) = AsyncStream.makeStream(of: Void.self)
        let subscriber = SubscriberService(  // before connect, as whereabouts-sub does
            store: store, connection: client, configuration: SubscriberConfiguration(viewInterval: 0.05),
            logger: logger, onSubscribed: { subscribedSink.yield() })
        try await client.connect()
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            services: [
                subscriber,
                DashboardService(source: store, configuration: .init(port: 0), logger: logger, onListening: { portSink.yield($0) }),
            ],
            logger: logger)
        return SubscriberDashboardGroup(group: group, client: client, subscribed: subscribed, ports: ports)
    }

    /// Waits, while ``group`` runs, until the subscriber has subscribed and the dashboard
    /// listens; returns the dashboard's port.
    func port() async throws -> Int {
        for await _ in subscribed { break }
        var portIterator = ports.makeAsyncIterator()
        return try #require(await portIterator.next())
    }
}
