import Circles
import Foundation
import Logging
import WhereaboutsMQTT

/// Ingest rate: the same `count` messages are queued by the broker for two offline persistent
/// sessions, then drained by `mosquitto_sub -c -C count > /dev/null` and by the subscriber
/// (`SubscriberService`, views published as usual). Each time runs from process start (or
/// connect) until the last message is consumed.
enum IngestBenchmark {
    struct Result {
        var count: Int
        var baselineRate: Double
        var subscriberRate: Double
    }

    static func run(broker: BenchBroker, workload: BenchWorkload, count: Int, logger: Logger) async throws -> Result {
        let host = ["-h", "127.0.0.1", "-p", "\(broker.port)"]
        // Create both persistent sessions with their subscriptions, then go offline.
        try runProgram("/usr/bin/mosquitto_sub", host + ["-c", "-i", "bench-baseline", "-q", "1", "-t", "owntracks/+/+", "-E"])
        let rawSetup = MQTTClient(configuration: MQTTConfiguration(port: broker.port, clientID: "bench-raw", cleanSession: false), logger: logger)
        try await rawSetup.connect()
        try await rawSetup.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)
        await rawSetup.disconnect()
        let router = TopicRouter()
        let filters = workload.file.memberIDs.flatMap(router.filters(for:))
        let sessionConfiguration = MQTTConfiguration(port: broker.port, clientID: "bench-sub", cleanSession: false)
        let setup = MQTTClient(configuration: sessionConfiguration, logger: logger)
        try await setup.connect()
        for chunk in stride(from: 0, to: filters.count, by: 500) {
            try await setup.subscribe(to: filters[chunk..<min(chunk + 500, filters.count)].map { (filter: $0, qos: QoS.atLeastOnce) })
        }
        await setup.disconnect()

        let publisher = MQTTClient(configuration: MQTTConfiguration(port: broker.port, clientID: "bench-pub", maxInflightMessages: 1000), logger: logger)
        try await publisher.connect()
        try await workload.publish(count: count, with: publisher)
        await publisher.disconnect()

        // Diagnostic: the client library alone draining its own session copy of the stream.
        let raw = MQTTClient(configuration: MQTTConfiguration(port: broker.port, clientID: "bench-raw", cleanSession: false), logger: logger)
        let rawMessages = raw.messages
        let rawStart = ContinuousClock.now
        try await raw.connect()
        var rawCount = 0
        for await _ in rawMessages {
            rawCount += 1
            if rawCount == count { break }
        }
        let rawElapsed = ContinuousClock.now - rawStart
        await raw.disconnect()
        print(String(format: "  (diagnostic: WhereaboutsMQTT client alone drains %.0f msg/s)", Double(count) / rawElapsed.seconds))

        let baseline = try runProgram("/usr/bin/mosquitto_sub", host + ["-c", "-i", "bench-baseline", "-q", "1", "-t", "owntracks/+/+", "-C", "\(count)"])

        let store = CircleViewStore(circles: workload.file, logger: logger)
        let client = MQTTClient(configuration: sessionConfiguration, logger: logger)
        let transport = MQTTCircleTransport(client: client)
        let start = ContinuousClock.now
        try await client.connect()
        let service = SubscriberService(store: store, transport: transport, configuration: SubscriberConfiguration(), logger: logger)
        let task = Task { try await service.run() }
        while await store.statistics().accepted < count {
            try await Task.sleep(for: .milliseconds(2))
        }
        let elapsed = ContinuousClock.now - start
        task.cancel()
        _ = try? await task.value
        await client.disconnect()
        let stats = await store.statistics()
        guard stats.rejectedTotal == 0, stats.duplicates == 0 else { throw BenchError("unexpected rejections: \(stats)") }
        return Result(count: count, baselineRate: Double(count) / baseline.seconds, subscriberRate: Double(count) / elapsed.seconds)
    }
}
