import Subscriber
import Foundation
import Logging
import Synchronization
import WhereaboutsMQTT

/// Ingest rate. In each round the same `count` messages are queued by the broker for three
/// offline persistent sessions, then drained, in alternating order, by
/// `mosquitto_sub -c -C count > /dev/null` (the baseline), by the WhereaboutsMQTT client alone
/// (a diagnostic: the MQTT client's own ceiling), and by the subscriber (`SubscriberService` with a
/// fresh store; views are published as usual). Each time runs from process start (or connect)
/// until the last message is consumed. The best round of each is reported, since the machine is
/// shared and slow rounds measure the neighbours.
enum IngestBenchmark {
    struct Result {
        var count: Int
        var rounds: Int
        var baselineRates: [Double]
        var clientRates: [Double]
        var subscriberRates: [Double]
        /// The subscriber with `--history` (a fresh SQLite file each round): ingest rate, and the
        /// rate until every row was committed.
        var historyRates: [Double] = []
        var historyCommittedRates: [Double] = []
        /// CPU seconds per message (consumer, broker) for each drain, summed over the rounds.
        var cpu: [String: (consumer: Double, broker: Double)] = [:]
    }

    static func run(broker: BenchBroker, workload: BenchWorkload, count: Int, rounds: Int, logger: Logger) async throws -> Result {
        let host = ["-h", "127.0.0.1", "-p", "\(broker.port)"]
        let baselineSession = host + ["-c", "-i", "bench-baseline", "-q", "1", "-t", "owntracks/+/+"]
        try runProgram("/usr/bin/mosquitto_sub", baselineSession + ["-E"])
        // Both drain with the subscriber's own client settings (SubscriberApp.clientConfiguration).
        let rawConfiguration = SubscriberApp.clientConfiguration(MQTTConfiguration(port: broker.port, clientID: "bench-raw"))
        let rawSetup = MQTTClient(configuration: rawConfiguration, logger: logger)
        try await rawSetup.connect()
        try await rawSetup.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)
        await rawSetup.disconnect()
        let router = TopicRouter()
        let filters = workload.file.memberIDs.flatMap(router.filters(for:))
        let sessionConfiguration = SubscriberApp.clientConfiguration(MQTTConfiguration(port: broker.port, clientID: "bench-sub"))
        // The subscriber with history drains a session of its own, set up the same way.
        let historyConfiguration = SubscriberApp.clientConfiguration(MQTTConfiguration(port: broker.port, clientID: "bench-sub-history"))
        for configuration in [sessionConfiguration, historyConfiguration] {
            let setup = MQTTClient(configuration: configuration, logger: logger)
            try await setup.connect()
            for chunk in stride(from: 0, to: filters.count, by: 500) {
                try await setup.subscribe(to: filters[chunk..<min(chunk + 500, filters.count)].map { (filter: $0, qos: QoS.atLeastOnce) })
            }
            await setup.disconnect()
        }

        var result = Result(count: count, rounds: rounds, baselineRates: [], clientRates: [], subscriberRates: [])
        for round in 0..<rounds {
            let publisher = MQTTClient(
                configuration: MQTTConfiguration(port: broker.port, clientID: "bench-pub", maxInflightMessages: 1000), logger: logger)
            try await publisher.connect()
            try await workload.publish(count: count, with: publisher)
            await publisher.disconnect()

            func measured<T>(_ name: String, child: Bool = false, _ body: () async throws -> T) async rethrows -> T {
                let (consumer0, broker0) = (child ? CPUTime.ofChildren() : CPUTime.ofSelf(), CPUTime.of(broker.processIdentifier))
                let value = try await body()
                let (consumer1, broker1) = (child ? CPUTime.ofChildren() : CPUTime.ofSelf(), CPUTime.of(broker.processIdentifier))
                let previous = result.cpu[name] ?? (0, 0)
                result.cpu[name] = (previous.consumer + (consumer1 - consumer0) / Double(count), previous.broker + (broker1 - broker0) / Double(count))
                return value
            }
            let baseline = { () async throws -> Double in
                try await measured("mosquitto_sub", child: true) {
                    Double(count) / (try runProgram("/usr/bin/mosquitto_sub", baselineSession + ["-C", "\(count)"])).seconds
                }
            }
            if let only = ProcessInfo.processInfo.environment["INGEST_ONLY"] {  // one drain per round, for profiling
                FileHandle.standardError.write(Data("draining \(only)\n".utf8))
                try await Task.sleep(for: .seconds(1))  // room to attach a profiler
                if only == "mosquitto_sub" {
                    // INGEST_WRAPPER (e.g. "valgrind --tool=callgrind"): the baseline under a profiler.
                    let wrapper = ProcessInfo.processInfo.environment["INGEST_WRAPPER"].map { $0.split(separator: " ").map(String.init) } ?? []
                    let arguments = baselineSession + ["-C", "\(count)"]
                    let elapsed = try wrapper.isEmpty
                        ? runProgram("/usr/bin/mosquitto_sub", arguments)
                        : runProgram(try resolvedProgram(wrapper[0]), Array(wrapper.dropFirst()) + ["/usr/bin/mosquitto_sub"] + arguments)
                    result.baselineRates.append(Double(count) / elapsed.seconds)
                } else if only == "client" {
                    result.clientRates.append(try await drainWithClient(rawConfiguration, count: count, logger: logger))
                } else {
                    result.subscriberRates.append(try await drainWithSubscriber(sessionConfiguration, workload: workload, count: count, logger: logger))
                }
                continue
            }
            if round % 2 == 0 { result.baselineRates.append(try await baseline()) }
            result.clientRates.append(try await measured("client alone") { try await drainWithClient(rawConfiguration, count: count, logger: logger) })
            result.subscriberRates.append(try await measured("subscriber") {
                try await drainWithSubscriber(sessionConfiguration, workload: workload, count: count, logger: logger)
            })
            let withHistory = try await measured("subscriber with history") {
                try await drainWithSubscriber(historyConfiguration, workload: workload, count: count, history: true, logger: logger)
            }
            result.historyRates.append(withHistory)
            if round % 2 == 1 { result.baselineRates.append(try await baseline()) }
        }
        return result
    }

    private static func drainWithClient(_ configuration: MQTTConfiguration, count: Int, logger: Logger) async throws -> Double {
        let client = MQTTClient(configuration: configuration, logger: logger)
        let messages = client.messages
        let start = ContinuousClock.now
        try await client.connect()
        var received = 0
        for await _ in messages {
            received += 1
            if received == count { break }
        }
        let elapsed = ContinuousClock.now - start
        await client.disconnect()
        return Double(count) / elapsed.seconds
    }

    /// Drains the session with a fresh subscriber; with `history`, also with a `HistoryWriter`
    /// on a fresh file (the time includes opening it), as `whereabouts-sub --history` runs.
    private static func drainWithSubscriber(
        _ configuration: MQTTConfiguration, workload: BenchWorkload, count: Int, history: Bool = false, logger: Logger
    ) async throws -> Double {
        let store = CircleViewStore(circles: workload.file, logger: logger)
        let client = MQTTClient(configuration: configuration, logger: logger)
        let start = ContinuousClock.now
        var writer: HistoryWriter?
        var folder: URL?
        if history {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-history-\(UUID().uuidString)")
            folder = directory
            writer = HistoryWriter(
                store: try HistoryStore(path: directory.appendingPathComponent("history.sqlite").path, logger: logger),
                views: store, logger: logger)
        }
        defer { if let folder { try? FileManager.default.removeItem(at: folder) } }
        let service = SubscriberService(
            store: store, connection: client, configuration: ingestConfiguration(), logger: logger, history: writer)
        try await client.connect()
        let writing = writer.map { writer in Task { try await writer.run() } }
        let task = Task { try await service.run() }
        while await store.statistics().accepted < count {
            try await Task.sleep(for: .milliseconds(2))
        }
        let elapsed = ContinuousClock.now - start
        task.cancel()
        _ = try? await task.value
        if let writer, let writing {
            while writer.backlog > 0 { try await Task.sleep(for: .milliseconds(2)) }
            let committed = ContinuousClock.now - start
            writing.cancel()
            try await writing.value
            historyCommitted.withLock { $0.append(Double(count) / committed.seconds) }
        }
        await client.disconnect()
        let stats = await store.statistics()
        // At least every message, none rejected. On a loaded machine the publisher's QoS 1
        // retransmissions can put a few copies more into the session (each a new message to the
        // broker); copies older than the trail are not recognised as duplicates, so `accepted`
        // may exceed `count` by them.
        guard stats.rejected.total == 0, stats.accepted >= count else {
            throw BenchError("unexpected ingest counts: \(stats)")
        }
        if stats.accepted + stats.duplicates > count {
            FileHandle.standardError.write(Data("note: \(stats.accepted + stats.duplicates - count) redelivered copies in this drain: \(stats)\n".utf8))
        }
        return Double(count) / elapsed.seconds
    }
}

/// `name` as found on `PATH` (for `INGEST_WRAPPER`), or `name` itself when it holds a slash.
private func resolvedProgram(_ name: String) throws -> String {
    if name.contains("/") { return name }
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let path = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw BenchError("\(name) is not on PATH")
}

/// The commit rates of the history drains, in order (the drain returns the ingest rate).
let historyCommitted = Mutex<[Double]>([])

/// The subscriber's configuration for the ingest drain; `INGEST_VIEW_INTERVAL` (seconds) overrides
/// the view interval, to see what publishing the views costs while ingesting.
private func ingestConfiguration() -> SubscriberConfiguration {
    var configuration = SubscriberConfiguration()
    // The recommended outlier rules (off by default), so their cost is in the measurement.
    configuration.settings.maxAccuracy = 5_000
    configuration.settings.maxImpliedSpeed = 350
    if let interval = ProcessInfo.processInfo.environment["INGEST_VIEW_INTERVAL"].flatMap(Double.init) {
        configuration.viewInterval = interval
    }
    return configuration
}
