import Subscriber
import Foundation
import Logging
import WhereaboutsCore
import WhereaboutsMQTT

/// Measures the in-process ingest pipeline alone (route, decode, validate, apply), without MQTT.
enum PipelineBenchmark {
    static func run(messages: Int, members: Int, logger: Logger) async -> Double {
        let circles = (0..<(members / 10)).map { c in
            Circle(id: "c\(c)", name: "C\(c)", members: (0..<10).map { Member(user: "u\(c * 10 + $0)", device: "d") })
        }
        let store = CircleViewStore(circles: CirclesFile(circles: circles), logger: logger)
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: ViewSettings())
        let t0 = Int(Date().timeIntervalSince1970) - messages
        let encoder = JSONEncoder()
        let stream = (0..<messages).map { i in
            let m = i % members
            let message = LocationMessage(tid: "ab", tst: t0 + i / members, lat: 52 + Double(i) * 1e-7, lon: -8.6, acc: 5,
                                          vel: 36, cog: 90, batt: 80, t: "t", ve: 10, vn: 0, ms: 60)
            return MQTTMessage(topic: "owntracks/u\(m)/d", payload: try! encoder.encode(message), retained: false)
        }
        let start = ContinuousClock.now
        let now = Date()
        for message in stream { await ingestor.handle(message, at: now) }
        let elapsed = ContinuousClock.now - start
        let accepted = await store.statistics().accepted
        precondition(accepted == messages, "accepted \(accepted) of \(messages)")
        return Double(messages) / elapsed.seconds
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension PipelineBenchmark {
    /// The ingest drain's messages (``BenchWorkload``) handed to `Ingestor.run` from memory: the
    /// loop on the store's actor that `SubscriberService` runs, with the drain's outlier rules.
    /// Returns the CPU time (user + system) per message in seconds: the subscriber's own ingest
    /// cost per message, without MQTT, steadier than the drains on a shared machine.
    static func cpuPerMessageOnActor(messages count: Int, workload: BenchWorkload, logger: Logger) async throws -> Double {
        let store = CircleViewStore(circles: workload.file, logger: logger)
        var settings = ViewSettings()
        settings.maxAccuracy = 5_000
        settings.maxImpliedSpeed = 350
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: settings)
        let base = Int(Date().timeIntervalSince1970) - count / workload.members - 10
        let messages = (0..<count).map { i in
            MQTTMessage(
                topic: workload.topic(i % workload.members), payload: workload.payload(i, tst: base + i / workload.members),
                qos: .atLeastOnce)
        }
        let start = CPUTime.ofSelf()
        try await ingestor.run(MessagesInMemory(messages: messages))
        let cpu = CPUTime.ofSelf() - start
        let stats = await store.statistics()
        precondition(stats.accepted == count && stats.rejected.total == 0, "unexpected ingest counts: \(stats)")
        return cpu / Double(count)
    }
}

/// Messages from an array, as an `AsyncSequence` that never suspends.
private struct MessagesInMemory: AsyncSequence, Sendable {
    let messages: [MQTTMessage]
    struct AsyncIterator: AsyncIteratorProtocol {
        let messages: [MQTTMessage]
        var index = 0
        mutating func next() async -> MQTTMessage? {
            guard index < messages.count else { return nil }
            defer { index += 1 }
            return messages[index]
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(messages: messages) }
}
