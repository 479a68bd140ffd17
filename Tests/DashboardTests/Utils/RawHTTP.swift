import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sends one hand-written HTTP/1.1 request over a plain TCP socket and returns the status code
/// and the start of the answer: headers exactly as a hostile client would write them (a forged
/// `Host`, a foreign `Origin`), which HTTP client libraries set themselves. Reads are bounded by
/// a 10 s socket timeout. The blocking calls run on a thread of their own: on the cooperative
/// pool (two threads on a two-core machine) they would starve the server they talk to.
enum RawHTTP {
    struct Answer: Sendable {
        var status: Int
        var text: String
    }

    static func send(port: Int, _ head: [String]) async throws -> Answer {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try exchange(port: port, head) })
            }.start()
        }
    }

    private static func exchange(port: Int, _ head: [String]) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let request = Array((head.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        guard write(fd, request, request.count) == request.count else { throw POSIXError(.EIO) }
        // Read until the header block is complete (and a little of the body).
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") || received.count < 64 {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n"), count < buffer.count { break }
        }
        let text = String(decoding: received, as: UTF8.self)
        let statusField = text.split(separator: " ", maxSplits: 2).dropFirst().first
        return Answer(status: statusField.flatMap { Int($0) } ?? 0, text: text)
    }

    /// A WebSocket upgrade request for `path` with the given `Host` and optional `Origin`.
    static func upgrade(_ path: String, host: String, origin: String?) -> [String] {
        var head = [
            "GET \(path) HTTP/1.1", "Host: \(host)", "Connection: Upgrade", "Upgrade: websocket",
            "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ]
        if let origin { head.append("Origin: \(origin)") }
        return head
    }
}
