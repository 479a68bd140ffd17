import CoreMetrics
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Prometheus
import Testing
@testable import Publisher

@Suite("Metrics")
struct MetricsServerTests {
    /// Sends a raw HTTP request over a real TCP connection and returns the whole response.
    private func request(port: Int, _ text: String) async throws -> String {
        try await rawHTTPExchange(port: port, request: text)
    }

    @Test("GET /metrics serves the counters in Prometheus text format; other paths are 404")
    func serves() async throws {
        let registry = PrometheusCollectorRegistry()
        let metrics = PublisherMetrics(factory: PrometheusMetricsFactory(registry: registry))
        metrics.fixesRead.increment(by: 3)
        metrics.rejected(reason: "too-old")
        metrics.rejected(reason: "too-old")
        metrics.outboxDepth.record(7)
        let server = try MetricsServer(port: 0, logger: Logger(label: "test")) { registry.emitToBuffer() }
        defer { server.stop() }
        #expect(server.port > 0)
        let response = try await request(port: server.port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("Content-Type: text/plain; version=0.0.4"))
        #expect(response.contains("\nwhereabouts_pub_fixes_read_total 3\n"))
        #expect(response.contains(#"whereabouts_pub_fixes_rejected_total{reason="too-old"} 2"#))
        #expect(response.contains("whereabouts_pub_outbox_depth 7"))
        let missing = try await request(port: server.port, "GET / HTTP/1.1\r\n\r\n")
        #expect(missing.hasPrefix("HTTP/1.1 404"))
        let post = try await request(port: server.port, "POST /metrics HTTP/1.1\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405"))
    }

    @Test("A port in use is a clear error")
    func portInUse() throws {
        let first = try MetricsServer(port: 0, logger: Logger(label: "test")) { [] }
        defer { first.stop() }
        #expect(throws: MetricsServerError.self) {
            try MetricsServer(port: first.port, logger: Logger(label: "test")) { [] }
        }
    }
}
