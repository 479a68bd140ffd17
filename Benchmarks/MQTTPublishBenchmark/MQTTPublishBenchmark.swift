// Publishes N messages through the Swift MQTTClient and through a plain C libmosquitto loop
// (CMosquittoBaseline), alternately, against one fresh mosquitto started for this run, and
// prints messages per second and the Swift/C ratio.
import ArgumentParser
import CMosquittoBaseline
import Foundation
import Logging
import WhereaboutsMQTT
import WhereaboutsTestSupport

@main
struct MQTTPublishBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measures MQTT publish throughput of the Swift client against a plain C libmosquitto loop.",
        discussion: """
            Starts its own mosquitto on a free loopback port, then runs the same workload through \
            the C baseline and the Swift client in alternation, and reports the median rate of \
            each and their ratio.
            """)

    @Option(help: "The number of messages per run.")
    var count = 20_000

    @Option(help: "The QoS of the messages: 0, 1 or 2.")
    var qos = 1

    @Option(help: "The most publishes awaiting acknowledgement at once (both clients).")
    var window = 100

    @Option(help: "libmosquitto's inflight limit (max_inflight_messages) for both clients.")
    var maxInflight = 100

    @Option(help: "The payload size in bytes.")
    var payloadSize = 200

    @Option(help: "How many runs of each client; the median is reported.")
    var repetitions = 5

    @Option(help: "Which clients to run: both (the ratio), c or swift (alone, for a profiler such as callgrind).")
    var clients = "both"

    func validate() throws {
        guard count > 0 else { throw ValidationError("--count must be positive.") }
        guard (0...2).contains(qos) else { throw ValidationError("--qos must be 0, 1 or 2.") }
        guard window > 0, maxInflight > 0 else { throw ValidationError("--window and --max-inflight must be positive.") }
        guard payloadSize >= 0, repetitions > 0 else { throw ValidationError("--payload-size must be >= 0 and --repetitions > 0.") }
        guard ["both", "c", "swift"].contains(clients) else { throw ValidationError("--clients must be both, c or swift.") }
    }

    func run() async throws {
        let broker = try await Broker.start()
        print("broker: mosquitto on 127.0.0.1:\(broker.port); \(count) messages, QoS \(qos), window \(window), max inflight \(maxInflight), \(payloadSize) B payload, \(repetitions) repetitions")
        var cRates: [Double] = [], swiftRates: [Double] = [], ratios: [Double] = [], cpuRatios: [Double] = []
        var switchRatios: [Double] = []
        if clients != "both" {
            // One client alone, for a profiler: its rate only, no ratio.
            for round in 1...repetitions {
                let cpuBefore = Self.processCPUSeconds(), switchesBefore = Self.processContextSwitches()
                let rate = clients == "c" ? try runC(broker: broker, round: round) : try await runSwift(broker: broker, round: round)
                let cpu = (Self.processCPUSeconds() - cpuBefore) / Double(count) * 1e6
                let switches = Double(Self.processContextSwitches() - switchesBefore) / Double(count)
                print(String(format: "round %d: %@ %.0f msg/s, %.2f us CPU/msg, %.2f sleeps/msg", round, clients, rate, cpu, switches))
            }
            await broker.stop()
            return
        }
        for round in 1...repetitions {
            // CPU time of this process (every thread; the broker is another process) per message,
            // connecting and disconnecting included: less sensitive to a loaded machine than rates.
            // The order alternates, so that neither client always runs after the other.
            // Voluntary context switches per message (every thread of this process, those that
            // ended included: getrusage): how often a thread slept and had to be woken.
            var c = 0.0, swift = 0.0, cCPU = 0.0, swiftCPU = 0.0, cSwitches = 0.0, swiftSwitches = 0.0
            for client in round % 2 == 1 ? ["c", "swift"] : ["swift", "c"] {
                let cpuBefore = Self.processCPUSeconds(), switchesBefore = Self.processContextSwitches()
                if client == "c" { c = try runC(broker: broker, round: round) } else { swift = try await runSwift(broker: broker, round: round) }
                let cpu = (Self.processCPUSeconds() - cpuBefore) / Double(count) * 1e6
                let switches = Double(Self.processContextSwitches() - switchesBefore) / Double(count)
                if client == "c" { (cCPU, cSwitches) = (cpu, switches) } else { (swiftCPU, swiftSwitches) = (cpu, switches) }
            }
            cRates.append(c)
            swiftRates.append(swift)
            ratios.append(swift / c)
            cpuRatios.append(swiftCPU / cCPU)
            switchRatios.append(swiftSwitches / max(cSwitches, 1e-9))
            print(String(format: "round %d: C %.0f msg/s, Swift %.0f msg/s, ratio %.2f; CPU/msg C %.2f us, Swift %.2f us, Swift/C %.2f; sleeps/msg C %.2f, Swift %.2f",
                         round, c, swift, swift / c, cCPU, swiftCPU, swiftCPU / cCPU, cSwitches, swiftSwitches))
        }
        let cMedian = median(cRates), swiftMedian = median(swiftRates)
        print(String(format: "median: C %.0f msg/s, Swift %.0f msg/s, ratio of medians %.2f", cMedian, swiftMedian, swiftMedian / cMedian))
        // Each round runs C and Swift back to back, so its ratio shares the machine's load of
        // the moment: the median per-round ratio is the figure to quote.
        print(String(format: "Swift/C ratio (median of rounds): %.2f", median(ratios)))
        print(String(format: "Swift/C CPU per message (median of rounds): %.2f", median(cpuRatios)))
        print(String(format: "Swift/C voluntary context switches per message (median of rounds): %.2f", median(switchRatios)))
        await broker.stop()
    }

    private func runC(broker: Broker, round: Int) throws -> Double {
        let result = whereabouts_c_publish_benchmark(
            broker.host, Int32(broker.port), "bench-c-\(round)", "bench/c/\(round)", count, Int32(qos),
            Int32(window), Int32(maxInflight), Int32(payloadSize))
        guard result.error == 0, result.acknowledged == count else {
            throw ValidationError("The C baseline failed: libmosquitto error \(result.error), \(result.acknowledged) acknowledged.")
        }
        return Double(count) / result.seconds
    }

    private func runSwift(broker: Broker, round: Int) async throws -> Double {
        var configuration = broker.clientConfiguration(clientID: "bench-swift-\(round)")
        configuration.maxInflightMessages = maxInflight
        configuration.keepAlive = .seconds(30)
        var logger = Logger(label: "benchmark")
        logger.logLevel = .warning
        let client = MQTTClient(configuration: configuration, logger: logger)
        try await client.connect()
        let payload = Data(repeating: UInt8(ascii: "x"), count: payloadSize)
        let topic = "bench/swift/\(round)"
        let qos = QoS(rawValue: self.qos)!
        let (count, window) = (self.count, self.window)
        // `window` tasks publish in parallel, each waiting for its acknowledgement before the
        // next: at most `window` publishes await acknowledgement at once, like the C loop.
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<min(window, count) {
                group.addTask {
                    for _ in stride(from: worker, to: count, by: window) {
                        try await client.publish(to: topic, payload: payload, qos: qos)
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        await client.disconnect()
        return Double(count) / elapsed.seconds
    }

    /// Voluntary context switches of every thread of this process so far, ended threads
    /// included: how often a thread went to sleep, so each is one wake-up later. (Involuntary
    /// ones, preemptions, measure the machine's load more than the client.)
    private static func processContextSwitches() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_nvcsw
    }

    /// User + system CPU time of this process so far, in seconds.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
