import Foundation
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
/// reports lost (acknowledged but never shown, nor anything newer of the device), subscriber CPU
/// per message and resident memory (both instances), broker CPU (all nodes) in % of one core.
/// `--kill-node` adds a NATS run at the largest size with node 1 killed (SIGKILL) half-way.
@main
struct LoadBenchmark {
    static func main() async {
        var sizes = [1000]
        var seconds = 60.0
        var brokers: [LoadRun.BrokerChoice] = [.mosquitto, .nats]
        var killNode = false
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--devices": sizes = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
            case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? seconds
            case "--brokers": brokers = (arguments.popFirst() ?? "").split(separator: ",").compactMap { LoadRun.BrokerChoice(rawValue: String($0)) }
            case "--kill-node": killNode = true
            default:
                FileHandle.standardError.write(Data("usage: LoadBenchmark [--devices N,N] [--seconds S] [--brokers mosquitto,nats] [--kill-node]\n".utf8))
                exit(2)
            }
        }
        guard let binary = Self.sibling("whereabouts-sub") ?? TestPaths.builtExecutable(named: "whereabouts-sub")?.path else {
            FileHandle.standardError.write(Data("LoadBenchmark: build whereabouts-sub first (swift build -c release --product whereabouts-sub)\n".utf8))
            exit(1)
        }
        // 10,000 connections need as many descriptors here, in mosquitto and in each NATS node.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

        var runs: [LoadRun] = []
        for size in sizes {
            for broker in brokers { runs.append(LoadRun(broker: broker, devices: size, seconds: seconds, killNode: false, subscriberBinary: binary)) }
        }
        if killNode, let largest = sizes.max(), brokers.contains(.nats) {
            runs.append(LoadRun(broker: .nats, devices: largest, seconds: seconds, killNode: true, subscriberBinary: binary))
        }
        say("| run | reports | acknowledged | timed | lost | latency p50 / p99 ms | subscriber µs CPU / message | subscribers' RSS MB | broker CPU % of a core | connect s |")
        say("|---|---|---|---|---|---|---|---|---|---|")
        for run in runs {
            do {
                let r = try await run.run()
                say(String(format: "| %@ | %d | %d | %d | %d | %.0f / %.0f | %.0f | %.1f | %.0f | %.0f |",
                             r.label, r.reports, r.acknowledged, r.shown, r.lost, r.p50, r.p99,
                             r.subscriberCPUMicrosPerMessage, r.subscriberRSSMB, r.brokerCPUPercent, r.connectSeconds))
            } catch {
                say("| \(run.broker.rawValue) \(run.devices) | failed: \(error) |")
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
