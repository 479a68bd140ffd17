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
        try await Task.detached {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            defer { close(fd) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var response: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                response += buffer[0..<n]
            }
            return String(decoding: response, as: UTF8.self)
        }.value
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
