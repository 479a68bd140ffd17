import Subscriber
@testable import Dashboard
import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import HummingbirdWSTesting
import Logging
import Testing
import WhereaboutsTestSupport
import WhereaboutsCore

@Suite("Dashboard WebSocket pushes")
struct WebSocketTests {
    /// Decodes the next pushed view (skipping events), or fails when the socket ends.
    static func nextView(_ messages: inout WebSocketInboundMessageStream.AsyncIterator) async throws -> CircleView {
        while true {
            guard case .text(let text)? = try await messages.next() else {
                Issue.record("The WebSocket ended before a view arrived.")
                throw CancellationError()
            }
            if text.contains(#""_type":"event""#) { continue }
            return try JSONDecoder().decode(CircleView.self, from: Data(text.utf8))
        }
    }

    /// Views pushed on one socket, read one at a time.
    struct Views {
        var messages: WebSocketInboundMessageStream.AsyncIterator
        mutating func next() async throws -> CircleView { try await WebSocketTests.nextView(&messages) }
    }

    /// Opens a WebSocket on `path` and runs `body` with its views; bounded to 30 s.
    static func withViews(
        _ client: some TestClientProtocol, _ path: String,
        _ body: @escaping @Sendable (inout Views) async throws -> Void
    ) async throws {
        try await withTimeout(.seconds(30), "views on \(path)") {
            try await client.ws(path) { inbound, _, _ in
                var views = Views(messages: inbound.messages(maxSize: 1 << 22).makeAsyncIterator())
                try await body(&views)
            }
        }
    }

    static func application(_ store: CircleViewStore) -> some ApplicationProtocol {
        DashboardApplication.make(source: store, configuration: .init(port: 0), logger: Logger(label: "DashboardTests"))
    }

    @Test("Events go out on the socket of their circle, in order: a member coming online and arriving at a place")
    func events() async throws {
        var logger = Logger(label: "DashboardTests")
        logger.logLevel = .warning
        let home = Place(name: "Home", lat: 52.68, lon: -8.65, radius: 100, dwell: 0)
        let store = CircleViewStore(circles: CirclesFile(circles: [
            Circle(id: "family", name: "Family", members: [Fixtures.alice], places: [home]),
            Circle(id: "team", name: "Field team", members: [Fixtures.erin]),
        ]), viewInterval: 0, logger: logger)
        try await Self.application(store).test(.live) { client in
            try await withTimeout(.seconds(30), "events on the family socket") {
                try await client.ws("/api/circles/family/ws") { inbound, _, _ in
                    var messages = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                    _ = try await Self.nextView(&messages)
                    try await Fixtures.move(Fixtures.erin, in: store, to: 52.6800, -8.6500)
                    try await Fixtures.move(Fixtures.alice, in: store, to: 52.6800, -8.6500)
                    var events: [CircleEvent] = []
                    while events.count < 2 {
                        guard case .text(let text)? = try await messages.next() else { break }
                        if let event = try? JSONDecoder().decode(CircleEvent.self, from: Data(text.utf8)) { events.append(event) }
                    }
                    #expect(events.map(\.event) == [.online, .arrived], "\(events)")
                    #expect(events.allSatisfy { $0.circle == "family" && $0.user == "alice" }, "erin's team events stay off this socket")
                    #expect(events.last?.place == "Home")
                }
            }
        }
    }

    @Test("A circle's socket sends the current view at once, then each change of that circle only")
    func circleSocket() async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.live) { client in
            try await Self.withViews(client, "/api/circles/family/ws") { views in
                let first = try await views.next()
                #expect(first.circle.id == "family")
                #expect(first.member(user: "alice", device: "phone")?.fix?.lat == Fixtures.aliceStart.lat)

                // Erin is only in the team circle: that change must not reach this socket. (The
                // store may also publish family views of its own, e.g. when Bob's stale timeout is
                // noticed; those may come first.)
                try await Fixtures.move(Fixtures.erin, in: store, to: 52.6800, -8.6500)
                try await Fixtures.move(Fixtures.alice, in: store, to: 52.6702, -8.6111)
                var second = try await views.next()
                var previous = first.generatedAt
                while second.member(user: "alice", device: "phone")?.fix?.lat != 52.6702 {
                    #expect(second.circle.id == "family")
                    #expect(second.generatedAt > previous, "views of one circle never go backwards")
                    previous = second.generatedAt
                    second = try await views.next()
                }
                #expect(second.circle.id == "family")
                let alice = try #require(second.member(user: "alice", device: "phone"))
                #expect(alice.fix?.lat == 52.6702 && alice.fix?.lon == -8.6111)
                #expect(second.generatedAt >= first.generatedAt)
            }
        }
    }

    @Test("Closed WebSocket connections leave no request context behind (hummingbird-websocket's upgrade box held each one in a cycle)")
    func closedConnectionsFreeTheirContexts() async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.live) { client in
            let port = try #require(client.port)
            for path in Array(repeating: "/api/circles/family/ws", count: 10) + Array(repeating: "/ws", count: 10) {
                try await Self.withViews(client, path) { views in
                    _ = try await views.next()
                }
            }
            // The last context is released when its connection's task ends, just after the client
            // saw the close: wait for it, bounded.
            let deadline = ContinuousClock.now + .seconds(10)
            while DashboardRequestContext.allocatedContexts(port: port) > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(DashboardRequestContext.allocatedContexts(port: port) == 0,
                    "20 WebSocket connections opened and closed; contexts still allocated")
        }
    }

    @Test("/ws sends every circle's view at once, then changes of any circle")
    func allCirclesSocket() async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.live) { client in
            try await Self.withViews(client, "/ws") { views in
                let snapshot = [try await views.next(), try await views.next()]
                #expect(snapshot.map(\.circle.id) == ["family", "team"])

                // Alice is in both circles: one fix changes both views.
                try await Fixtures.move(Fixtures.alice, in: store, to: 52.6702, -8.6111)
                var moved: Set<String> = []
                while moved != ["family", "team"] {
                    let view = try await views.next()
                    #expect(["family", "team"].contains(view.circle.id))
                    if view.member(user: "alice", device: "phone")?.fix?.lat == 52.6702 { moved.insert(view.circle.id) }
                }
            }
        }
    }

    @Test("A socket for an unknown circle is refused")
    func unknownCircle() async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.live) { client in
            await #expect(throws: (any Error).self) {
                try await withTimeout(.seconds(30), "the refused upgrade") {
                    try await client.ws("/api/circles/nope/ws") { _, _, _ in
                        Issue.record("The upgrade for an unknown circle succeeded.")
                    }
                }
            }
        }
    }

    @Test("A client that comes back after a change gets the newest view first")
    func newestFirstAfterReconnect() async throws {
        let store = await Fixtures.store()
        try await Self.application(store).test(.live) { client in
            try await Self.withViews(client, "/api/circles/team/ws") { views in
                _ = try await views.next()
            }
            // A change while no client is connected is still what the next client sees first.
            try await Fixtures.move(Fixtures.erin, in: store, to: 52.6800, -8.6500)
            try await Self.withViews(client, "/api/circles/team/ws") { views in
                let view = try await views.next()
                #expect(view.member(user: "erin", device: "van")?.fix?.lat == 52.6800)
            }
        }
    }

    @Test("Fifty clients on one circle each get the snapshot and then the change")
    func manyClients() async throws {
        let store = await Fixtures.store()
        let clients = 50
        try await Self.application(store).test(.live) { client in
            let (ready, readySink) = AsyncStream.makeStream(of: Void.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<clients {
                    group.addTask {
                        try await Self.withViews(client, "/api/circles/family/ws") { views in
                            _ = try await views.next()
                            readySink.yield()
                            while try await views.next().member(user: "alice", device: "phone")?.fix?.lat != 52.6702 {}
                        }
                    }
                }
                // Move Alice once every client holds its snapshot.
                var count = 0
                for await _ in ready {
                    count += 1
                    if count == clients { break }
                }
                try await Fixtures.move(Fixtures.alice, in: store, to: 52.6702, -8.6111)
                try await group.waitForAll()
            }
        }
    }
}
