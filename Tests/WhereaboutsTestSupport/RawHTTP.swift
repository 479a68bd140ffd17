import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sends one hand-written HTTP/1.1 request over a plain TCP socket to 127.0.0.1 and returns the
/// answer: headers exactly as written (a forged `Host`, a foreign `Origin`, a bare `GET /`), which
/// HTTP client libraries set themselves. Reads until the server closes, the body announced by
/// `Content-Length` is in, or a `101 Switching Protocols` head is complete; each read is bounded by
/// a socket timeout (10 s unless said). The blocking calls run on a thread of their own
/// (``OffPool``): on the cooperative pool (two threads on a two-core machine) they would starve the
/// server they talk to.
public enum RawHTTP {
    /// What the server answered.
    public struct Answer: Sendable {
        /// The status code (0 when the answer had no status line).
        public var status: Int
        /// Everything read: status line, headers and body.
        public var text: String
        /// The part after the header block (all of `text` when there is no header block).
        public var body: String {
            text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? text
        }
    }

    /// Sends the request lines `head` (joined with CRLF and ended by an empty line).
    public static func send(port: Int, _ head: [String]) async throws -> Answer {
        try await send(port: port, request: head.joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// Sends `request` exactly as written; a read that waits longer than `readTimeout` ends the
    /// answer (status 0 if nothing came).
    public static func send(port: Int, request: String, readTimeout: Duration = .seconds(10)) async throws -> Answer {
        try await OffPool.run { try exchange(port: port, Array(request.utf8), readTimeout: readTimeout) }
    }

    /// A WebSocket upgrade request for `path` with the given `Host` and optional `Origin`.
    public static func upgrade(_ path: String, host: String, origin: String?) -> [String] {
        var head = [
            "GET \(path) HTTP/1.1", "Host: \(host)", "Connection: Upgrade", "Upgrade: websocket",
            "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ]
        if let origin { head.append("Origin: \(origin)") }
        return head
    }

    private static func exchange(port: Int, _ request: [UInt8], readTimeout: Duration) throws -> Answer {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: Int(readTimeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard write(fd, request, request.count) == request.count else { throw POSIXError(.EIO) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !isComplete(received) {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let statusField = text.split(separator: " ", maxSplits: 2).dropFirst().first
        return Answer(status: statusField.flatMap { Int($0) } ?? 0, text: text)
    }

    /// Whether `received` holds a whole answer that the server may not follow with a close.
    private static func isComplete(_ received: [UInt8]) -> Bool {
        let text = String(decoding: received, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<end.lowerBound].lowercased()
        if head.hasPrefix("http/1.1 101") { return true }
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            return text[end.upperBound...].utf8.count >= length
        }
        return false
    }
}
