import Hummingbird
import Logging
import ServiceLifecycle
import Subscriber

/// The web dashboard as a long-running service: serves the page, the JSON API and the WebSocket
/// view pushes until the service group shuts down.
///
/// On graceful shutdown it stops accepting connections, closes open WebSockets with a normal
/// closure, lets requests in flight finish, and returns.
package struct DashboardService: Service {
    private let source: CircleViewStore
    private let configuration: DashboardConfiguration
    private let logger: Logger
    private let onListening: @Sendable (Int) async -> Void

    /// Creates the service; nothing listens until ``run()``.
    ///
    /// - Parameters:
    ///   - source: Where views come from (the subscriber's view store).
    ///   - configuration: Host, port and page settings.
    ///   - logger: Logs the listening address at info and each request at debug.
    ///   - onListening: Called with the bound port once the server accepts connections.
    package init(
        source: CircleViewStore,
        configuration: DashboardConfiguration = DashboardConfiguration(),
        logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.source = source
        self.configuration = configuration
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until graceful shutdown or cancellation; throws when the address cannot be bound.
    package func run() async throws {
        let application = DashboardApplication.make(
            source: source, configuration: configuration, logger: logger, onListening: onListening
        )
        try await application.run()
    }
}
