import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `GET /metrics` from a publisher's metrics server on loopback, over a real TCP connection; the
/// body of the response (Prometheus text).
func scrapeMetrics(port: Int) async throws -> String {
    let text = try await rawHTTPExchange(port: port, request: "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? text
}

/// Sends `request` as written over a real TCP connection to 127.0.0.1:`port` and returns the whole
/// response, read until the server closes (reads time out after 5 s). Runs on a detached task.
func rawHTTPExchange(port: Int, request: String) async throws -> String {
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
        let bytes = Array(request.utf8)
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

/// The value of the sample `series` (name with its labels, as rendered) in Prometheus text, or nil.
func metricValue(_ series: String, in text: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1).trimmingCharacters(in: .whitespaces))
    }
    return nil
}
