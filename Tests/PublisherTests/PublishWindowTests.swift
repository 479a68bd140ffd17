import Foundation
import Outbox
import Prometheus
import Synchronization
import Testing
import WhereaboutsMQTT
@testable import Publisher

/// A pure in-memory connection: records the order publishes start in and how many wait at once;
/// each publish waits until the test releases it (or fails when its topic says so).
private final class GatedConnection: BrokerConnection {
    private struct State {
        var started: [String] = []
        var waiting: [CheckedContinuation<Void, any Error>] = []
        var inFlight = 0
        var maxInFlight = 0
    }
    private let state = Mutex(State())

    var started: [String] { state.withLock { $0.started } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func publish(to topic: String, payload: Data, qos: QoS, retain: Bool, timeout: Duration?) async throws {
        defer { state.withLock { $0.inFlight -= 1 } }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            state.withLock { state in
                state.started.append(topic)
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
                state.waiting.append(continuation)
            }
        }
        if topic.hasSuffix("fail") { throw CancellationError() }
    }

    /// Completes every waiting publish, the newest first (acknowledgements out of order).
    func releaseAll() {
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting.reversed() { continuation.resume() }
    }

    // The window only publishes; the rest of the connection is always up and silent.
    var messages: AsyncStream<MQTTMessage> { AsyncStream { $0.finish() } }
    func subscribe(to filters: [String], qos: QoS, timeout: Duration?) async throws {}
    func unsubscribe(from filters: [String], timeout: Duration?) async throws {}
    func connectedSince() async -> Date? { Date(timeIntervalSince1970: 0) }
    func waitUntilConnected(timeout: Duration) async -> Bool { true }
    func takeFreshSession() async -> Bool { false }
}

@Suite("Publish window")
struct PublishWindowTests {
    private func items(_ topics: [String]) -> [(entry: OutboxEntry, plan: DeliveryPlan)] {
        topics.enumerated().map { index, topic in
            let entry = OutboxEntry(id: Int64(index + 1), topic: topic, payload: Data("{}".utf8), tst: index, createdAt: Date())
            return (entry, DeliveryPlan(entry: entry, newestID: Int64(topics.count), connectedSince: Date(timeIntervalSince1970: 0),
                                        retried: false, retain: true))
        }
    }

    private func window(_ connection: GatedConnection, maxInFlight: Int) -> PublishWindow {
        PublishWindow(connection: connection, settings: PublisherSettings(maxInFlight: maxInFlight),
                      metrics: PublisherMetrics(factory: PrometheusMetricsFactory(registry: PrometheusCollectorRegistry())))
    }

    @Test("Keeps up to the window in flight, starts publishes in outbox order, and reports every acknowledgement")
    func windowAndOrder() async throws {
        let connection = GatedConnection()
        let topics = (0..<50).map { "t/\($0)" }
        let releaser = Task {
            while !Task.isCancelled {
                if connection.waitingCount >= 7 || connection.started.count == topics.count { connection.releaseAll() }
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { releaser.cancel() }
        // Before each hand-off the window asks whether to stop: by then every earlier publish must
        // already have reached the connection (started immediately, not merely scheduled).
        var startedBeforeHandOff: [Int] = []
        let sent = await window(connection, maxInFlight: 7).send(items(topics)) {
            startedBeforeHandOff.append(connection.started.count)
            return false
        }
        #expect(startedBeforeHandOff == Array(0..<topics.count), "each publish started before the next was handed out")
        #expect(connection.started == topics, "handed to MQTT in outbox order")
        #expect(connection.maxInFlight == 7, "the window is full, never over")
        #expect(sent.map(\.id) == Array(1...50))
        #expect(sent.allSatisfy { $0.error == nil })
        #expect(sent.filter(\.retained).map(\.id) == [50], "only the newest is retained")
    }

    @Test("After a failure no further entry is handed out; those in flight are awaited")
    func stopsAfterFailure() async throws {
        let connection = GatedConnection()
        let topics = ["t/1", "t/2-fail", "t/3", "t/4", "t/5", "t/6"]
        let releaser = Task {
            while !Task.isCancelled {
                connection.releaseAll()
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { releaser.cancel() }
        let sent = await window(connection, maxInFlight: 3).send(items(topics)) { false }
        #expect(sent.count < topics.count, "nothing new is handed out after the failure")
        #expect(sent.map(\.id) == Array(1...Int64(sent.count)), "a prefix, in order")
        #expect(sent.first { $0.id == 2 }?.error != nil)
    }
}

@Suite("Window settlement")
struct WindowSettlementTests {
    @Test("All acknowledged (in any order): exactly those rows are removed")
    func allAcknowledged() {
        let settlement = WindowSettlement([(1, false, true), (2, false, true), (3, true, true)])
        #expect(settlement.remove == [1, 2, 3] && settlement.retry.isEmpty && !settlement.failed)
    }

    @Test("A failure keeps the failed row and removes the acknowledged ones, but keeps the retained newest behind it")
    func failureKeepsRetainedNewest() {
        let settlement = WindowSettlement([(1, false, true), (2, false, false), (3, false, true), (4, true, true)])
        #expect(settlement.remove == [1, 3])
        #expect(settlement.retry == [2, 4], "the newest goes out again after the failed row, retained")
        #expect(settlement.failed)
    }

    @Test("A retained newest acknowledged before any failure is removed")
    func retainedBeforeFailure() {
        let settlement = WindowSettlement([(1, true, true), (2, false, false)])
        #expect(settlement.remove == [1] && settlement.retry == [2])
    }
}
