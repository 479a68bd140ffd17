#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 server that answers `GET /metrics` with a Prometheus text rendering.
///
/// It runs on one dedicated thread with blocking sockets (so it never blocks the Swift cooperative
/// pool), serves one short request at a time, closes every connection after its response, and
/// answers anything else with 404 (or 405 for methods other than GET). It is meant for a scraper
/// on a trusted network, not for the open internet.
final class MetricsServer: Sendable {
    /// The port actually bound (useful when 0 was asked for).
    let port: Int
    private let listener: Int32
    private let render: @Sendable () -> [UInt8]
    private let logger: Logger
    private let stopped = Mutex(false)

    /// Binds `address:port` (port 0 picks a free one) and starts answering on a thread.
    ///
    /// - Parameter render: Produces the Prometheus text to serve.
    init(address: String = "127.0.0.1", port: Int, logger: Logger, render: @escaping @Sendable () -> [UInt8]) throws(MetricsServerError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .cannotBind(address: address, port: port, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, address, &addr.sin_addr) == 1 else {
            close(fd)
            throw .cannotBind(address: address, port: port, reason: "not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotBind(address: address, port: port, reason: reason)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        self.listener = fd
        self.render = render
        self.logger = logger
        OwnThread.start(name: "whereabouts-metrics") { [self] in self.acceptLoop() }
        logger.info("Serving metrics.", metadata: ["whereabouts.metrics.port": "\(self.port)"])
    }

    /// Stops accepting connections and closes the listening socket. Safe to call more than once.
    func stop() {
        let already = stopped.withLock { value in
            defer { value = true }
            return value
        }
        guard !already else { return }
        // shutdown wakes the thread blocked in accept; it then sees `stopped` and closes the socket.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            serve(client)
        }
        close(listener)
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        while request.count < 16_384 {
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            request += chunk[0..<n]
            if String(decoding: request, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let response: [UInt8]
        if parts.count >= 2, parts[0] != "GET" {
            response = Self.response(status: "405 Method Not Allowed", type: "text/plain", body: Array("Only GET is supported.\n".utf8))
        } else if parts.count >= 2, parts[1] == "/metrics" || parts[1].hasPrefix("/metrics?") {
            response = Self.response(status: "200 OK", type: "text/plain; version=0.0.4; charset=utf-8", body: render())
        } else {
            response = Self.response(status: "404 Not Found", type: "text/plain", body: Array("Metrics are at /metrics.\n".utf8))
        }
        var offset = 0
        while offset < response.count {
            let sent = response[offset...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
    }

    private static func response(status: String, type: String, body: [UInt8]) -> [UInt8] {
        Array("HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
    }
}

/// Why the metrics server could not start.
enum MetricsServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The address and port could not be bound (in use, not permitted, not an address).
    case cannotBind(address: String, port: Int, reason: String)

    /// A sentence naming the address and port.
    var description: String {
        switch self {
        case let .cannotBind(address, port, reason):
            "Cannot serve metrics on \(address):\(port): \(reason). Choose another --metrics-port."
        }
    }
}
