import Subscriber
@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import Synchronization
import Testing
import WhereaboutsTestSupport

/// DNS rebinding and cross-site WebSocket hijacking, tried against the live dashboard with
/// hand-written requests (issue 9: `Origin: http://evil.example` got 101 and `Host: evil.example`
/// got 200).
@Suite("Dashboard refuses foreign Host and Origin")
struct SecurityTests {
    static func withDashboard(
        _ configuration: DashboardConfiguration = .init(port: 0),
        _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws {
        let store = await Fixtures.store()
        var logger = Logger(label: "DashboardTests")
        logger.logLevel = .critical
        let app = DashboardApplication.make(source: store, configuration: configuration, logger: logger)
        try await app.test(.live) { client in
            try await body(try #require(client.port))
        }
    }

    static func get(_ path: String, port: Int, host: String, origin: String? = nil) async throws -> RawHTTP.Answer {
        var head = ["GET \(path) HTTP/1.1", "Host: \(host)", "Connection: close"]
        if let origin { head.append("Origin: \(origin)") }
        return try await RawHTTP.send(port: port, head)
    }

    @Test("The API answers its own host and refuses another name with 403 and a JSON reason", arguments: ["/api/circles", "/api/circles/family", "/", "/healthz", "/assets/live.js", "/assets/leaflet/leaflet.css"])
    func foreignHost(path: String) async throws {
        try await Self.withDashboard { port in
            #expect(try await Self.get(path, port: port, host: "127.0.0.1:\(port)").status == 200)
            #expect(try await Self.get(path, port: port, host: "localhost:\(port)").status == 200)
            let refused = try await Self.get(path, port: port, host: "evil.example:\(port)")
            #expect(refused.status == 403)
            #expect(refused.text.contains("\"error\":\"forbidden_host\""))
            #expect(!refused.text.contains("alice"), "no circle data in the refusal")
        }
    }

    @Test("A request without Host is refused with 400")
    func missingHost() async throws {
        try await Self.withDashboard { port in
            let answer = try await RawHTTP.send(port: port, ["GET /api/circles HTTP/1.0"])
            #expect(answer.status == 400)
            #expect(answer.text.contains("bad_host"))
        }
    }

    @Test("A WebSocket upgrade from a foreign Origin gets 403, its own origin and no Origin get 101", arguments: ["/ws", "/api/circles/family/ws"])
    func webSocketOrigin(path: String) async throws {
        try await Self.withDashboard { port in
            let host = "127.0.0.1:\(port)"
            for origin in ["http://evil.example", "http://127.0.0.1:\(port + 1)", "null"] {
                let refused = try await RawHTTP.send(port: port, RawHTTP.upgrade(path, host: host, origin: origin))
                #expect(refused.status == 403, "Origin \(origin): \(refused.text.prefix(200))")
                #expect(refused.text.contains("forbidden_origin"))
            }
            #expect(try await RawHTTP.send(port: port, RawHTTP.upgrade(path, host: host, origin: "http://\(host)")).status == 101)
            #expect(try await RawHTTP.send(port: port, RawHTTP.upgrade(path, host: host, origin: nil)).status == 101)
            #expect(try await RawHTTP.send(port: port, RawHTTP.upgrade(path, host: "evil.example:\(port)", origin: "http://evil.example:\(port)")).status == 403)
        }
    }

    @Test("Configured names and origins are answered")
    func configured() async throws {
        let configuration = DashboardConfiguration(port: 0, allowedHosts: ["dash.example.org"], allowedOrigins: ["https://dash.example.org"])
        try await Self.withDashboard(configuration) { (port: Int) async throws in
            #expect(try await Self.get("/api/circles", port: port, host: "dash.example.org").status == 200)
            #expect(try await Self.get("/api/circles", port: port, host: "evil.example").status == 403)
            let upgrade = RawHTTP.upgrade("/ws", host: "127.0.0.1:\(port)", origin: "https://dash.example.org")
            #expect(try await RawHTTP.send(port: port, upgrade).status == 101)
        }
    }

    @Test("A real WebSocket client with a foreign Origin is refused, with its own origin it gets views")
    func webSocketClient() async throws {
        try await Self.withDashboard { port in
            let logger = ServiceTests.logger(.critical)
            let url = "ws://127.0.0.1:\(port)/api/circles/family/ws"
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(30), "the refused upgrade") {
                    _ = try await WebSocketClient.connect(
                        url: url, configuration: .init(additionalHeaders: [.origin: "http://evil.example"]), logger: logger
                    ) { _, _, _ in Issue.record("The upgrade from a foreign origin succeeded.") }
                }
            }
            let first = try await withTimeout(.seconds(30), "the first view") {
                let received = Mutex<String?>(nil)
                _ = try await WebSocketClient.connect(
                    url: url, configuration: .init(additionalHeaders: [.origin: "http://127.0.0.1:\(port)"]), logger: logger
                ) { inbound, _, _ in
                    var messages = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                    if case .text(let text)? = try await messages.next() { received.withLock { $0 = text } }
                }
                return received.withLock { $0 }
            }
            #expect(first?.contains("\"id\":\"family\"") == true)
        }
    }
}
