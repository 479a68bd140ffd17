import ArgumentParser
import Foundation
import WhereaboutsMQTT
import WhereaboutsTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `LoadBenchmark`: N simulated devices, each with its own MQTT connection, against one mosquitto
/// and the three-node NATS cluster side by side, with two `whereabouts-sub --shard i/2`.
///
///     swift build -c release --product whereabouts-sub --product LoadBenchmark
///     .build/release/LoadBenchmark --devices 1000,10000 --seconds 60 [--brokers mosquitto,nats] [--kill-node]
///
/// For each broker and size: publish-to-view latency p50/p99 (from the device's PUBLISH to the
/// first retained view that shows the fix, through both subscribers' view interval of 1 s),
/// reports lost (acknowledged but never shown, nor anything newer of the device; and, end to end,
/// acknowledged but missing from both subscribers' `--history` files, or never covered by a
/// subscriber's receipt: the devices speak receipts like `whereabouts-pub`), subscriber CPU
/// per message and resident memory (both instances), broker CPU (all nodes) in % of one core.
/// `--kill-node` adds a NATS run at the largest size with node 1 killed (SIGKILL) half-way
/// (`--kill-node-runs N`: N such runs in a row), and reports how long the node took to be current
/// again (each node's `/healthz` is watched from the kill to the run's end; a node not current in
/// time, or a report left unconfirmed, gets a comment line saying when it was current and where
/// the nodes' and subscribers' logs, `/jsz` answers and histories were kept, under
/// /tmp/loadbench-diagnostics). Each row ends with the machine's load average when publishing started and at the end.
/// After each NATS row, a comment line gives the JetStream work per acknowledged report (stream
/// writes, consumer deliveries and acknowledgements, from node 2's `/jsz`) and, when views were
/// lost, whether each node's retained views hold the lost reports. After each row, a comment
/// line says where the first copies of the reports resent for want of a receipt went (issue 27):
/// in the subscribers' history before the resend (the receipt was late or lost: when the
/// subscriber published it, as a plain watcher of the receipts saw), taken in after it (late, and
/// by how much), or never (the history holds the resend's copy, which LoadDevice marks `"t":"r"`,
/// and the subscribers' `/metrics` count no duplicate), with whether a plain QoS 0 watcher of the
/// reports had the first copy; and, on NATS, each persistent session's `$MQTT_msgs` consumer as
/// its leader's `/jsz` reports it (deliveries against the QoS 1 reports published, ack pending,
/// redeliveries). `--trace-session` adds a persistent QoS 1 session of the benchmark's own
/// client. `--nats-configs` and
/// `--subscribers` compare node configurations and subscriber binaries run by run; the view
/// watcher reads at QoS 0 unless `--watcher-qos 1`.
@main
struct LoadBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "LoadBenchmark",
        abstract: "Measures N simulated MQTT devices against mosquitto and a three-node NATS cluster, through two sharded whereabouts-sub.",
        discussion: """
            For each broker and each number of devices, starts the broker(s) and two \
            whereabouts-sub --shard i/2 (the release build next to this program, else the one \
            the tests find), connects every device with its own MQTT connection and client id, \
            and has each report for --seconds. Prints one table row per run: reports, \
            acknowledged, lost (acknowledged but never shown in a view; acknowledged but not in \
            either subscriber's history; acknowledged but never covered by a receipt, with the \
            resends), publish-to-view latency p50/p99 \
            in ms, subscriber CPU per message in microseconds, both subscribers' resident memory \
            in MB and broker CPU in % of one core. mosquitto and NATS, run side by side at the \
            same size, are each other's baseline. Raises the open-file limit to its maximum. \
            Build both in release first: \
            swift build -c release --product whereabouts-sub --product LoadBenchmark
            """)

    @Option(help: "The numbers of devices, comma-separated; one run per broker for each.")
    var devices = CommaSeparated<Int>([1000])

    @Option(help: "Seconds each run's devices keep reporting (fractions allowed).")
    var seconds = 60.0

    @Option(help: "The brokers to run against, comma-separated: mosquitto, nats or both.")
    var brokers = CommaSeparated<LoadRun.BrokerChoice>([.mosquitto, .nats])

    @Option(help: "Seconds to wait between the last device's connection and the first report (default 0: the reports follow the connection storm at once).")
    var settle = 0.0

    @Flag(help: "Also run NATS at the largest number of devices with node 1 killed (SIGKILL) half-way.")
    var killNode = false

    @Option(help: "With --kill-node: how many node-killed runs to make, one after another (each with a fresh cluster).")
    var killNodeRuns = 1

    @Option(help: "NATS node configurations to compare, comma-separated files (default: the shipped broker/nats/local-node.conf); every NATS run is made once with each, one after another.")
    var natsConfigs = CommaSeparated<String>([])

    @Option(help: "The QoS of the view watcher's subscription: 0 (default; a plain NATS subscription, and every reconnect brings the retained views again) or 1 (on NATS a JetStream consumer: each view is a stream write and an acknowledgement more).")
    var watcherQos = 0

    @Flag(help: "Also read every report through a persistent QoS 1 session of the benchmark's own (its hand-written MQTT client, on node 3 with NATS): does it miss the first copies the subscribers miss? On NATS one JetStream consumer more.")
    var traceSession = false

    @Option(help: "whereabouts-sub binaries to compare, comma-separated paths (default: the release build next to this program); every run is made once with each, one after another.")
    var subscribers = CommaSeparated<String>([])

    func validate() throws {
        guard devices.values.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--devices must each be at least 1.") }
        guard seconds > 0, seconds.isFinite else { throw ValidationError("--seconds must be a positive number of seconds.") }
        guard watcherQos == 0 || watcherQos == 1 else { throw ValidationError("--watcher-qos must be 0 or 1.") }
        guard settle >= 0, settle.isFinite else { throw ValidationError("--settle must be zero or a positive number of seconds.") }
        guard killNodeRuns >= 1 else { throw ValidationError("--kill-node-runs must be at least 1.") }
    }

    @MainActor
    func run() async throws {
        let sizes = devices.values, brokers = brokers.values
        guard let binary = Self.sibling("whereabouts-sub") ?? TestPaths.builtExecutable(named: "whereabouts-sub")?.path else {
            FileHandle.standardError.write(Data("LoadBenchmark: build whereabouts-sub first (swift build -c release --product whereabouts-sub)\n".utf8))
            throw ExitCode.failure
        }
        // 10,000 connections need as many descriptors here, in mosquitto and in each NATS node.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        let configurations: [URL?] = natsConfigs.values.isEmpty ? [nil] : natsConfigs.values.map { URL(fileURLWithPath: $0) }
        let binaries = subscribers.values.isEmpty ? [binary] : subscribers.values
        // Every variant (configuration x subscriber binary) in turn, so that each is the others' baseline.
        func variants(_ broker: LoadRun.BrokerChoice, size: Int, killNode: Bool) -> [LoadRun] {
            (broker == .nats ? configurations : [nil]).flatMap { configuration in
                binaries.map { subscriber in
                    LoadRun(broker: broker, devices: size, seconds: seconds, settle: settle, killNode: killNode, subscriberBinary: subscriber,
                            natsConfiguration: configuration, labelsSubscriber: binaries.count > 1,
                            watcherQoS: watcherQos == 1 ? .atLeastOnce : .atMostOnce, traceSession: traceSession)
                }
            }
        }
        var runs: [LoadRun] = []
        for size in sizes {
            for broker in brokers { runs += variants(broker, size: size, killNode: false) }
        }
        if killNode, let largest = sizes.max(), brokers.contains(.nats) {
            for _ in 0..<killNodeRuns { runs += variants(.nats, size: largest, killNode: true) }
        }
        Self.say("| run | reports | acknowledged | timed | lost (views) | lost (history) | unconfirmed by receipts (resent) | latency p50 / p99 ms | subscriber µs CPU / message | subscribers' RSS MB | broker CPU % of a core | connect s | killed node current s | load average start / end |")
        Self.say("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for run in runs {
            do {
                let r = try await run.run()
                let historyLost = r.lostFromHistory == 0 ? "0" : "\(r.lostFromHistory) (\(r.lostExamples.joined(separator: ", ")))"
                let unconfirmed = (r.unconfirmed == 0 ? "0" : "\(r.unconfirmed) (\(r.unconfirmedExamples.joined(separator: ", ")))") + " (\(r.resent))"
                let nodeCurrent = r.nodeCurrentSeconds.map { $0.isFinite ? String(format: "%.1f", $0) : "not within 120" } ?? ""
                Self.say(String(format: "| %@ | %d | %d | %d | %d | %@ | %@ | %.0f / %.0f | %.0f | %.1f | %.0f | %.0f | %@ | %.1f / %.1f |",
                             r.label, r.reports, r.acknowledged, r.shown, r.lost, historyLost, unconfirmed, r.p50, r.p99,
                             r.subscriberCPUMicrosPerMessage, r.subscriberRSSMB, r.brokerCPUPercent, r.connectSeconds,
                             nodeCurrent, r.loadAverages.start, r.loadAverages.end))
                if let jetStream = r.jetStream { Self.say("<!-- JetStream, \(r.label): \(jetStream) -->") }
                if let node = r.nodeDiagnostics { Self.say("<!-- killed node, \(r.label): \(node) -->") }
                if let missed = r.missedViews { Self.say("<!-- views lost, \(r.label): \(missed) -->") }
                Self.say("<!-- latency by sending time, \(r.label): \(r.latencyProfile) -->")
                Self.say("<!-- resent, \(r.label): \(r.resends) -->")
                if let consumers = r.consumers { Self.say("<!-- subscribers' consumers, \(r.label): \(consumers) -->") }
            } catch {
                Self.say("| \(run.broker.rawValue) \(run.devices) | failed: \(error) |")
            }
        }
    }

    /// Writes a line to standard output at once (each row as its run ends).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func sibling(_ name: String) -> String? {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
