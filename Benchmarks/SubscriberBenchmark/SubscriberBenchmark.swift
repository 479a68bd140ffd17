import Foundation
import Logging

/// `swift run -c release SubscriberBenchmark [messages] [members]`: the subscriber's measured
/// goals (BENCHMARKS.md, `## Subscriber`), each against a baseline measured in the same run.
@main
struct SubscriberBenchmark {
    static func main() async throws {
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        var arguments = Array(CommandLine.arguments.dropFirst())
        let only = arguments.first.flatMap { Int($0) == nil ? $0 : nil }  // ingest, delay or memory
        if only != nil { arguments.removeFirst() }
        let messages = arguments.first.flatMap(Int.init) ?? 100_000
        let memoryMembers = arguments.dropFirst().first.flatMap(Int.init) ?? 100_000
        let workload = BenchWorkload(members: 1000)

        let broker = try BenchBroker()
        defer { broker.stop() }
        if only == nil || only == "ingest" {
        let rounds = ProcessInfo.processInfo.environment["INGEST_ROUNDS"].flatMap(Int.init) ?? 3
        let ingest = try await IngestBenchmark.run(broker: broker, workload: workload, count: messages, rounds: rounds, logger: logger)
        let best = (baseline: ingest.baselineRates.max() ?? .nan, client: ingest.clientRates.max() ?? .nan, subscriber: ingest.subscriberRates.max() ?? .nan)
        print(String(format: "ingest: %d messages from %d members, best of %d rounds: mosquitto_sub %.0f msg/s, whereabouts-sub %.0f msg/s, ratio %.2f",
                     ingest.count, workload.members, ingest.rounds, best.baseline, best.subscriber, best.subscriber / best.baseline))
        print(String(format: "  (WhereaboutsMQTT client alone: %.0f msg/s, ratio %.2f; every round: mosquitto_sub %@, client %@, subscriber %@)",
                     best.client, best.client / best.baseline, rates(ingest.baselineRates), rates(ingest.clientRates), rates(ingest.subscriberRates)))
        if ingest.baselineRates.count == ingest.subscriberRates.count, !ingest.baselineRates.isEmpty {
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            let subscriber = median(zip(ingest.subscriberRates, ingest.baselineRates).map { $0 / $1 })
            let client = median(zip(ingest.clientRates, ingest.baselineRates).map { $0 / $1 })
            print(String(format: "  median of the per-round ratios (each against that round's mosquitto_sub): subscriber %.2f, client alone %.2f",
                         subscriber, client))
        }
        if !ingest.historyRates.isEmpty {
            let committed = historyCommitted.withLock { $0 }
            let perRound = zip(ingest.historyRates, ingest.subscriberRates).map { $0 / $1 }.sorted()
            print(String(format: "  history on (--history, fresh SQLite file): best %.0f msg/s ingested vs %.0f off, ratio %.2f (per round %@, median %.2f); all rows committed at best %.0f msg/s (%@)",
                         ingest.historyRates.max()!, best.subscriber, ingest.historyRates.max()! / best.subscriber,
                         perRound.map { String(format: "%.2f", $0) }.joined(separator: "/"), perRound[perRound.count / 2],
                         committed.max() ?? .nan, rates(committed)))
        }
        for name in ["mosquitto_sub", "client alone", "subscriber", "subscriber with history"] {
            guard let cpu = ingest.cpu[name] else { continue }
            print(String(format: "  CPU per message, mean of the rounds: %@ %.1f us, broker meanwhile %.1f us",
                         name, cpu.consumer / Double(ingest.rounds) * 1e6, cpu.broker / Double(ingest.rounds) * 1e6))
        }

        }
        if only == nil || only == "delay" {
        let delay = try await DelayBenchmark.run(broker: broker, workload: workload, samples: 500, logger: logger)
        print(String(format: "delay: %d publishes: mosquitto_sub p50 %.2f ms p99 %.2f ms; retained view p50 %.2f ms p99 %.2f ms; p99 ratio %.2f",
                     delay.samples, delay.baselineP50, delay.baselineP99, delay.subscriberP50, delay.subscriberP99,
                     delay.subscriberP99 / delay.baselineP99))

        }
        if only == nil || only == "memory" {
        var pipeline: [Double] = []
        for _ in 0..<3 { pipeline.append(await PipelineBenchmark.run(messages: 200_000, members: 1000, logger: logger)) }
        print(String(format: "pipeline without MQTT (route, parse, validate, apply), best of 3: %.0f msg/s (%@)",
                     pipeline.max()!, rates(pipeline)))

        let memory = await MemoryBenchmark.run(members: memoryMembers, logger: logger)
        print(String(format: "memory: %d members with full trails: %.0f bytes per member (target < 2048: ratio %.2f); one wire message is %.0f bytes",
                     memory.members, memory.bytesPerMember, memory.bytesPerMember / 2048, memory.wireBytesPerMember))
        }
    }

    static func rates(_ values: [Double]) -> String {
        values.map { String(format: "%.0f", $0) }.joined(separator: "/")
    }
}
