import Logging
import Prometheus
import ServiceLifecycle

/// Serves the Prometheus registry on `GET /metrics` until graceful shutdown.
struct MetricsService: Service {
    private let server: MetricsServer

    /// Binds the port now (so a bad port fails at start) and serves `registry`; `beforeRendering`
    /// runs before each rendering (to bring counters kept elsewhere up to date).
    init(
        address: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger,
        beforeRendering: @escaping @Sendable () -> Void = {}
    ) throws(MetricsServerError) {
        server = try MetricsServer(address: address, port: port, logger: logger) {
            beforeRendering()
            return registry.emitToBuffer()
        }
    }

    /// The port bound.
    var port: Int { server.port }

    /// Waits for graceful shutdown (or cancellation), then stops the server.
    func run() async throws {
        defer { server.stop() }
        try? await gracefulShutdown()
    }
}
