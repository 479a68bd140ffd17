import Subscriber
import Dashboard
import Foundation
import HummingbirdWSClient
import Logging
import ServiceLifecycle
import Testing
import WhereaboutsTestSupport

@Suite("DashboardService lifecycle")
struct ServiceTests {
    /// Runs a `DashboardService` on a free loopback port in a service group; `body` gets the port
    /// and the group, and the group must have finished when `body` returns.
    static func withService(
        _ store: CircleViewStore,
        port: Int = 0,
        timeout: Duration = .seconds(60),
        logger: Logger = Self.logger(.warning),
        _ body: @escaping @Sendable (Int, ServiceGroup) async throws -> Void
    ) async throws {
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let service = DashboardService(
            source: store, configuration: .init(host: "127.0.0.1", port: port), logger: logger,
            onListening: { portSink.yield($0) }
        )
        let group = ServiceGroup(services: [service], logger: logger)
        let (stopped, stoppedSink) = AsyncStream.makeStream(of: Never.self)
        // The whole run is bounded: listening, the body, and the group's shutdown. A body with
        // waits of its own passes a `timeout` longer than their sum.
        try await withTimeout(timeout, "the dashboard service run") {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    defer { stoppedSink.finish() }
                    try await group.run()
                }
                var iterator = ports.makeAsyncIterator()
                guard let bound = await iterator.next() else { return }
                try await body(bound, group)
                // The body shut the group down; a service that does not stop then fails on its own
                // (30 s), not as the whole run's timeout.
                try await withTimeout(.seconds(30), "the dashboard to stop after its graceful shutdown") { for await _ in stopped {} }
                try await tasks.waitForAll()
            }
        }
    }

    static func logger(_ level: Logger.Level) -> Logger {
        var logger = Logger(label: "DashboardTests")
        logger.logLevel = level
        return logger
    }

    @Test("Graceful shutdown closes open WebSockets normally and stops the server")
    func gracefulShutdown() async throws {
        let store = await Fixtures.store()
        try await Self.withService(store) { port, group in
            #expect(port > 0)
            let logger = Self.logger(.warning)
            let close = try await withTimeout(.seconds(30), "the WebSocket to close") {
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/circles/family/ws", logger: logger) { inbound, _, _ in
                    var messages = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                    let first = try await messages.next()
                    #expect(first != nil, "the current view arrives before shutdown")
                    await group.triggerGracefulShutdown()
                    // The server ends the socket: no more views, the sequence finishes.
                    while try await messages.next() != nil {}
                }
            }
            #expect(close?.closeCode == .normalClosure)
        }
    }

    @Test("An address that is already in use fails the service with an error")
    func portInUse() async throws {
        let store = await Fixtures.store()
        try await Self.withService(store) { port, group in
            let logger = Self.logger(.critical)
            let second = DashboardService(source: store, configuration: .init(port: port), logger: logger)
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(30), "the second service to fail") {
                    try await ServiceGroup(services: [second], logger: logger).run()
                }
            }
            await group.triggerGracefulShutdown()
        }
    }
}
