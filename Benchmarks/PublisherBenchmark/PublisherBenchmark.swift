// PublisherBenchmark: measurements for BENCHMARKS.md `## Publisher`, each against a baseline run
// in the same process or the same run. Usage:
//   PublisherBenchmark outbox [--fixes N]
//   PublisherBenchmark drain  [--fixes N] (needs mosquitto, the whereabouts-pub binary and the C baseline)
//   PublisherBenchmark memory [--track GPX] [--seconds S] [--publisher PATH] (needs mosquitto and whereabouts-pub)
//   PublisherBenchmark receipts [--fixes N] (needs mosquitto, whereabouts-pub and whereabouts-sub)
import ArgumentParser
import Foundation

@main
struct PublisherBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "PublisherBenchmark",
        abstract: "Measures the publisher (BENCHMARKS.md, Publisher), each figure against a baseline measured in the same run.",
        discussion: """
            Choose one measurement: outbox, drain or memory. drain and memory run the real \
            whereabouts-pub built next to this program (swift build -c release --product \
            whereabouts-pub --product PublisherBenchmark) against a mosquitto they start \
            themselves. See 'PublisherBenchmark help <measurement>' for its options.
            """,
        subcommands: [Outbox.self, Drain.self, Memory.self, Receipts.self])

    func run() async throws {
        throw ValidationError("Choose a measurement: outbox, drain or memory.")
    }
}

extension PublisherBenchmark {
    struct Receipts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What receipts cost: messages, bytes and publish throughput with receipts on against off.",
            discussion: """
                Fills an outbox with --fixes reports, starts mosquitto on loopback and the real \
                whereabouts-sub and whereabouts-pub built next to this program: receipts off on \
                both (the subscriber without history), then on (the subscriber with --history), \
                twice each, alternating. A plain MQTT client counts reports and receipts (messages, \
                bytes with topics) and times the reports' arrival.
                """)

        @Option(help: "The number of reports in the backlog.")
        var fixes = 20_000

        func validate() throws {
            guard fixes >= 1 else { throw ValidationError("--fixes must be at least 1.") }
        }

        func run() async throws {
            try await ReceiptBenchmark(fixes: fixes).run()
        }
    }

    struct Outbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Outbox cost per fix against bare SQLite.",
            discussion: """
                Outbox.append (one durable transaction per report) plus Outbox.remove in batches \
                of 64, as the drainer deletes. Baseline, in the same run: bare SQLite doing the \
                same inserts (autocommit) and batched deletes on a file in the same WAL + \
                synchronous=FULL mode through the same library. Three interleaved rounds; prints \
                the median microseconds per fix of each and their ratio.
                """)

        @Option(help: "The number of reports appended and removed per round.")
        var fixes = 2000

        func validate() throws {
            guard fixes >= 1 else { throw ValidationError("--fixes must be at least 1.") }
        }

        func run() async throws {
            try await OutboxBenchmark(fixes: fixes).run()
        }
    }

    struct Drain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Time for whereabouts-pub to drain a backlog at QoS 1 against a C libmosquitto loop.",
            discussion: """
                Fills an outbox with --fixes reports of 129 bytes, starts mosquitto on loopback, \
                runs the C libmosquitto loop (Benchmarks/CMosquittoBaseline: one publish in \
                flight, and a window of 20) with the same count and payload size as the \
                baseline, then the real whereabouts-pub on the outbox, timed from process start \
                to exit. Prints seconds and messages per second of each and the ratios.
                """)

        @Option(help: "The number of reports in the backlog (and messages of the C baseline).")
        var fixes = 100_000

        func validate() throws {
            guard fixes >= 1 else { throw ValidationError("--fixes must be at least 1.") }
        }

        func run() async throws {
            try await DrainBenchmark(fixes: fixes).run()
        }
    }

    struct Memory: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resident memory of a running whereabouts-pub against mosquitto_sub.",
            discussion: """
                Runs whereabouts-pub replaying --track at 20x through the bounded policy, \
                connected to a mosquitto of its own and serving metrics, and samples VmRSS, \
                VmHWM and RssAnon from /proc every 100 ms. Baseline, in the same run: \
                mosquitto_sub, a minimal C MQTT client, on the same broker. Prints both peaks, the \
                ratios, and the VmHWM against the 30 MB target.
                """)

        @Option(help: "The GPX track to replay. (default: Tests/Fixtures/publisher/drive-240s.gpx of the checkout this program was built in)")
        var track: String?

        @Option(help: "Seconds to sample for (the replay may end sooner).")
        var seconds = 10

        @Option(help: "The whereabouts-pub binary to measure. (default: the one built next to this program)")
        var publisher: String?

        func validate() throws {
            guard seconds >= 1 else { throw ValidationError("--seconds must be at least 1.") }
            if let track, !FileManager.default.isReadableFile(atPath: track) {
                throw ValidationError("--track \(track) is not a readable file.")
            }
            if let publisher, !FileManager.default.isExecutableFile(atPath: publisher) {
                throw ValidationError("--publisher \(publisher) is not an executable.")
            }
        }

        func run() async throws {
            let fixture = BenchmarkSupport.productsFolder.appendingPathComponent("../../../Tests/Fixtures/publisher/drive-240s.gpx").standardized.path
            try await MemoryBenchmark(track: track ?? fixture, seconds: seconds, publisher: publisher.map { URL(fileURLWithPath: $0) }).run()
        }
    }
}
