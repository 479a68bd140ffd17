import Subscriber
import Foundation
import Logging
import Synchronization
import WhereaboutsMQTT

/// Delay from a publish to the updated retained view, against the delay from the same publish
/// to `mosquitto_sub` printing the raw message. One fix every `spacing`, rotating over members of
/// different circles so that no circle's view interval holds a view back.
enum DelayBenchmark {
    struct Result {
        var samples: Int
        var baselineP50: Double
        var baselineP99: Double
        var subscriberP50: Double
        var subscriberP99: Double
    }

    static func run(broker: BenchBroker, workload: BenchWorkload, samples: Int, logger: Logger) async throws -> Result {
        // Baseline: mosquitto_sub printing each payload; a thread timestamps each line.
        let arrivals = Mutex<[Int: ContinuousClock.Instant]>([:])
        let baseline = Process()
        baseline.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        baseline.arguments = ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", "owntracks/+/+", "-C", "\(samples)"]
        let pipe = Pipe()
        baseline.standardOutput = pipe
        try baseline.run()
        let reader = Thread {
            var buffer: [UInt8] = []
            while true {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { break }
                let now = ContinuousClock.now
                buffer.append(contentsOf: data)
                while let newline = buffer.firstIndex(of: 10) {
                    let line = Array(buffer[..<newline])
                    buffer.removeFirst(newline + 1)
                    if let tst = Self.tst(in: line) { arrivals.withLock { $0[tst] = now } }
                }
            }
        }
        reader.start()

        // The subscriber and a probe on the view topics.
        let store = CircleViewStore(circles: workload.file, viewInterval: 0.1, logger: logger)
        let client = MQTTClient(configuration: SubscriberApp.clientConfiguration(MQTTConfiguration(port: broker.port, clientID: "bench-delay-sub")), logger: logger)
        let service = SubscriberService(store: store, connection: client, configuration: SubscriberConfiguration(viewInterval: 0.1), logger: logger)
        try await client.connect()
        let serviceTask = Task { try await service.run() }
        let viewArrivals = Mutex<[Int: ContinuousClock.Instant]>([:])
        let probe = MQTTClient(configuration: MQTTConfiguration(port: broker.port, clientID: "bench-probe"), logger: logger)
        let probeMessages = probe.messages
        try await probe.connect()
        try await probe.subscribe(to: "whereabouts/circles/+/view", qos: .atLeastOnce)
        let probeTask = Task {
            let decoder = JSONDecoder()
            for await message in probeMessages {
                let now = ContinuousClock.now
                guard let view = try? decoder.decode(CircleView.self, from: message.payload) else { continue }
                viewArrivals.withLock { seen in
                    for member in view.members { if let tst = member.fix?.tst, seen[tst] == nil { seen[tst] = now } }
                }
            }
        }
        // Diagnostic: the same client library, subscribed to the raw member topics.
        let rawArrivals = Mutex<[Int: ContinuousClock.Instant]>([:])
        let rawProbe = MQTTClient(configuration: MQTTConfiguration(port: broker.port, clientID: "bench-raw-probe"), logger: logger)
        let rawMessages = rawProbe.messages
        try await rawProbe.connect()
        try await rawProbe.subscribe(to: "owntracks/+/+", qos: .atLeastOnce)
        let rawTask = Task {
            for await message in rawMessages {
                let now = ContinuousClock.now
                if let tst = Self.tst(in: Array(message.payload)) { rawArrivals.withLock { $0[tst] = now } }
            }
        }
        // Let the initial retained views go by.
        try await Task.sleep(for: .milliseconds(500))

        let publisher = MQTTClient(configuration: MQTTConfiguration(port: broker.port, clientID: "bench-delay-pub"), logger: logger)
        try await publisher.connect()
        var sent: [Int: ContinuousClock.Instant] = [:]
        let base = Int(Date().timeIntervalSince1970) - samples - 5
        let circles = workload.members / 10
        for i in 0..<samples {
            let tst = base + i  // unique across members, so a tst identifies its sample
            let member = (i % circles) * 10 + (i / circles) % 10
            let start = ContinuousClock.now
            try await publisher.publish(to: workload.topic(member), payload: workload.payload(i, tst: tst), qos: .atLeastOnce, retain: true)
            sent[tst] = start
            try await Task.sleep(for: .milliseconds(10))
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while viewArrivals.withLock({ $0.count }) < samples || arrivals.withLock({ $0.count }) < samples {
            guard ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        baseline.waitUntilExit()
        probeTask.cancel()
        rawTask.cancel()
        await rawProbe.disconnect()
        serviceTask.cancel()
        _ = try? await serviceTask.value
        await publisher.disconnect()
        await probe.disconnect()
        await client.disconnect()

        func delays(_ arrived: [Int: ContinuousClock.Instant]) -> [Double] {
            sent.compactMap { tst, start in arrived[tst].map { ($0 - start).seconds * 1000 } }.sorted()
        }
        let raw = delays(arrivals.withLock { $0 })
        let views = delays(viewArrivals.withLock { $0 })
        let rawClient = delays(rawArrivals.withLock { $0 })
        if !rawClient.isEmpty {
            print(String(format: "  (diagnostic: WhereaboutsMQTT client on the raw topics p50 %.2f ms p99 %.2f ms)",
                         percentile(rawClient, 0.5), percentile(rawClient, 0.99)))
        }
        guard raw.count == samples, views.count == samples else {
            throw BenchError("missing samples: mosquitto_sub \(raw.count), views \(views.count) of \(samples)")
        }
        return Result(samples: samples, baselineP50: percentile(raw, 0.5), baselineP99: percentile(raw, 0.99),
                      subscriberP50: percentile(views, 0.5), subscriberP99: percentile(views, 0.99))
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    /// The `"tst":N` value in a JSON line, without a full parse.
    static func tst(in line: [UInt8]) -> Int? {
        let key = Array(#""tst":"#.utf8)
        guard let start = line.firstRange(of: key)?.upperBound else { return nil }
        var value = 0
        var index = start
        while index < line.count, line[index] >= 48, line[index] <= 57 {
            value = value * 10 + Int(line[index] - 48)
            index += 1
        }
        return index > start ? value : nil
    }
}
