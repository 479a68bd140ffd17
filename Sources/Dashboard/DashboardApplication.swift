import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Subscriber

/// Builds the dashboard's Hummingbird application: HTTP routes and WebSocket upgrades on one port,
/// and the ``ViewBroadcaster`` service that feeds every WebSocket.
enum DashboardApplication {
    /// The largest WebSocket frame sent or accepted; larger views go out as several frames.
    static let maxFrameSize = 1 << 20

    /// How often an idle WebSocket client is pinged (a client that stops answering is closed).
    static let pingPeriod = Duration.seconds(30)
    /// How long a closing WebSocket waits for the client's close frame.
    static let closeTimeout = Duration.seconds(15)

    /// Makes the application for `source`, listening as `configuration` says.
    ///
    /// - Parameter onListening: Called with the bound port once the server accepts connections
    ///   (useful with port 0).
    static func make(
        source: CircleViewStore,
        configuration: DashboardConfiguration,
        logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        // A departed connection's ping and close timers keep its task's memory until they would
        // have fired, so freed memory is given back once more after the longer of the two.
        let broadcaster = ViewBroadcaster(
            source: source, lateMemoryRelease: max(pingPeriod, closeTimeout) + .seconds(2), logger: logger)
        // What a graceful shutdown closes, logged by the first service, which stops last.
        let shutdown = ShutdownTally()
        var services: [any Service] = [ShutdownReport(tally: shutdown, logger: logger), broadcaster]
        // Closes WebSockets whose login ended (Login/AccessWatchService.swift).
        if let login = configuration.login { services.append(AccessWatchService(authenticator: login)) }
        return Application(
            router: DashboardRouter.build(source: source, configuration: configuration, logger: logger),
            server: .originCheckedWebSocketUpgrade(
                webSocketRouter: DashboardRouter.webSocketRouter(
                    broadcaster: broadcaster, source: source, configuration: configuration, maxFrameSize: maxFrameSize,
                    shutdown: shutdown),
                configuration: .init(ws: .init(
                    maxFrameSize: maxFrameSize, autoPing: .enabled(timePeriod: pingPeriod), closeTimeout: closeTimeout)),
                policy: configuration.originPolicy,
                login: configuration.login,
                shutdown: shutdown
            ),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: nil
            ),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                logger.info(
                    "Dashboard listening",
                    metadata: ["whereabouts.http.host": "\(configuration.host)", "whereabouts.http.port": "\(port)"]
                )
                await onListening(port)
            },
            logger: logger
        )
    }
}
