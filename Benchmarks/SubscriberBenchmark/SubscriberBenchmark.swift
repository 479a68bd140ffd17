import ArgumentParser
import Foundation
import Logging

/// `swift run -c release SubscriberBenchmark [ingest|delay|memory] [messages] [members]`: the
/// subscriber's measured goals (BENCHMARKS.md, `## Subscriber`), each against a baseline measured
/// in the same run.
@main
struct SubscriberBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SubscriberBenchmark",
        abstract: "Measures the subscriber's goals (BENCHMARKS.md, Subscriber), each against a baseline measured in the same run.",
        discussion: """
            Without a part name, runs all three parts: ingest, delay and memory (with the \
            in-process pipeline), against one mosquitto it starts on a free loopback port. \
            The positional arguments are the same for every part: [messages] [members], e.g. \
            'SubscriberBenchmark 100000 100000' or 'SubscriberBenchmark ingest 50000'. \
            INGEST_ROUNDS=N in the environment sets the ingest part's rounds (default 3). \
            For profiling, INGEST_ONLY=subscriber, client or mosquitto_sub makes each round one \
            drain by that consumer, after a 1 s pause printed on stderr ("draining ..."); with \
            mosquitto_sub, INGEST_WRAPPER (e.g. 'valgrind --tool=callgrind') runs it under a profiler. \
            See 'SubscriberBenchmark help <part>' for what each part measures.
            """,
        subcommands: [All.self, Ingest.self, Delay.self, Memory.self],
        defaultSubcommand: All.self)

    /// The positional arguments every part takes, in the order they always had.
    struct Sizes: ParsableArguments {
        @Argument(help: "The messages of each ingest round (ingest part only).")
        var messages = 100_000

        @Argument(help: "The members in the store of the memory part, in circles of 10 (memory part only).")
        var members = 100_000

        func validate() throws {
            guard messages >= 1 else { throw ValidationError("The number of messages must be at least 1.") }
            guard members >= 10 else { throw ValidationError("The number of members must be at least 10 (circles of 10).") }
            if let rounds = ProcessInfo.processInfo.environment["INGEST_ROUNDS"], (Int(rounds) ?? 0) < 1 {
                throw ValidationError("INGEST_ROUNDS must be a whole number of at least 1, not '\(rounds)'.")
            }
        }
    }

    /// One part of the measurement; nil runs them all.
    enum Part: String { case ingest, delay, memory }

    /// A subcommand: the part it runs, and the sizes.
    protocol PartCommand: AsyncParsableCommand {
        var part: Part? { get }
        var sizes: Sizes { get }
    }

    /// Parses the arguments, then runs the chosen part in this main function's own synchronous
    /// start, as the program did before it used ArgumentParser (whose `main()` awaits before it
    /// runs a command). The mosquitto the parts share is started there, on the main thread, and
    /// Foundation's `Process.waitUntilExit` stops it later only when it was started there: started
    /// from a task after an await (on a pool thread), the final stop was seen to spin forever.
    static func main() async {
        do {
            var command = try parseAsRoot()
            guard let chosen = command as? any PartCommand else {
                try command.run()
                return
            }
            try await measure(chosen.part, chosen.sizes)
        } catch {
            exit(withError: error)
        }
    }

    struct All: PartCommand {
        static let configuration = CommandConfiguration(
            abstract: "Runs all three parts: ingest, delay and memory.")
        @OptionGroup var sizes: Sizes
        var part: Part? { nil }
    }

    struct Ingest: PartCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ingest rate of whereabouts-sub against mosquitto_sub.",
            discussion: """
                In each of INGEST_ROUNDS rounds (default 3), [messages] messages from 1,000 \
                members are queued by the broker for offline persistent sessions, then drained \
                in turn by mosquitto_sub -c (the baseline), by the WhereaboutsMQTT client alone, \
                by the subscriber, and by the subscriber with --history (a fresh SQLite file). \
                Prints messages per second (best round, every round), the ratios to the \
                baseline and CPU microseconds per message of each and of the broker.
                """)
        @OptionGroup var sizes: Sizes
        var part: Part? { .ingest }
    }

    struct Delay: PartCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delay from a publish to the updated retained view against mosquitto_sub.",
            discussion: """
                500 publishes, rotating over members of different circles; prints p50 and p99 \
                in milliseconds of the delay to the subscriber's updated retained view and, as \
                the baseline, to mosquitto_sub printing the raw message, and the p99 ratio. \
                The positional arguments are accepted and unused.
                """)
        @OptionGroup var sizes: Sizes
        var part: Part? { .delay }
    }

    struct Memory: PartCommand {
        static let configuration = CommandConfiguration(
            abstract: "Memory per tracked member, and the in-process ingest pipeline's rate.",
            discussion: """
                The in-process pipeline (route, parse, validate, apply; 200,000 messages, 1,000 \
                members) in messages per second, best of 3; then the resident bytes per member \
                of a store with [members] members with full trails, against the 2,048-byte \
                target and the size of one wire message.
                """)
        @OptionGroup var sizes: Sizes
        var part: Part? { .memory }
    }

    /// Runs `only` (all parts when nil) and prints the results.
    @MainActor
    static func measure(_ only: Part?, _ sizes: Sizes) async throws {
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let messages = sizes.messages
        let memoryMembers = sizes.members
        let workload = BenchWorkload(members: 1000)

        let broker = try BenchBroker()
        defer { broker.stop() }
        if only == nil || only == .ingest {
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
        if only == nil || only == .delay {
        let delay = try await DelayBenchmark.run(broker: broker, workload: workload, samples: 500, logger: logger)
        print(String(format: "delay: %d publishes: mosquitto_sub p50 %.2f ms p99 %.2f ms; retained view p50 %.2f ms p99 %.2f ms; p99 ratio %.2f",
                     delay.samples, delay.baselineP50, delay.baselineP99, delay.subscriberP50, delay.subscriberP99,
                     delay.subscriberP99 / delay.baselineP99))

        }
        if only == nil || only == .memory {
        // The store is measured before the pipeline runs: those free what they allocated and
        // malloc keeps the pages, so a small store measured after them fitted in those and the
        // resident set did not grow (1,000 members read "0 bytes per member").
        let memory = await MemoryBenchmark.run(members: memoryMembers, logger: logger)
        print(String(format: "memory: %d members with full trails: %.0f bytes per member (target < 2048: ratio %.2f); one wire message is %.0f bytes",
                     memory.members, memory.bytesPerMember, memory.bytesPerMember / 2048, memory.wireBytesPerMember))
        var pipeline: [Double] = []
        for _ in 0..<3 { pipeline.append(await PipelineBenchmark.run(messages: 200_000, members: 1000, logger: logger)) }
        print(String(format: "pipeline without MQTT (route, parse, validate, apply), best of 3: %.0f msg/s (%@)",
                     pipeline.max()!, rates(pipeline)))
        var onActor: [Double] = []
        for _ in 0..<5 { onActor.append(try await PipelineBenchmark.cpuPerMessageOnActor(messages: 200_000, workload: workload, logger: logger)) }
        print(String(format: "pipeline on the store's actor (Ingestor.run, the drain's messages and outlier rules), CPU per message, best of 5: %.2f us (%@)",
                     onActor.min()! * 1e6, onActor.map { String(format: "%.2f", $0 * 1e6) }.joined(separator: "/")))

        }
    }

    static func rates(_ values: [Double]) -> String {
        values.map { String(format: "%.0f", $0) }.joined(separator: "/")
    }
}
