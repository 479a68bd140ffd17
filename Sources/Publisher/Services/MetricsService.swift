import Logging
import Prometheus
import ServiceLifecycle

/// Serves the Prometheus registry on `GET /metrics` until graceful shutdown.
public struct MetricsService: Service {
    private let server: MetricsServer

    /// Binds the port now (so a bad port fails at start) and serves `registry`.
    public init(address: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger) throws(MetricsServerError) {
        server = try MetricsServer(address: address, port: port, logger: logger) { registry.emitToBuffer() }
    }

    /// The port bound.
    public var port: Int { server.port }

    /// Waits for graceful shutdown (or cancellation), then stops the server.
    public func run() async throws {
        defer { server.stop() }
        try? await gracefulShutdown()
    }
}
