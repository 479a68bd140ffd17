import Foundation
import WhereaboutsTestSupport

/// Resident memory of a running whereabouts-pub (a GPX replay at 20x through the bounded policy,
/// connected, publishing) against mosquitto_sub, a minimal C MQTT client, connected to the same
/// broker in the same run. Samples /proc/PID/status every 100 ms for `seconds`.
struct MemoryBenchmark {
    let track: String
    let seconds: Int
    /// The whereabouts-pub binary to measure; the one built next to this benchmark by default.
    let publisher: URL?

    func run() async throws {
        let folder = try BenchmarkSupport.temporaryFolder("memory")
        defer { try? FileManager.default.removeItem(at: folder) }
        let broker = try await Broker.start()
        defer { Task { await broker.stop() } }
        let sub = try BenchmarkSupport.start(URL(fileURLWithPath: "/usr/bin/mosquitto_sub"),
            ["-h", broker.host, "-p", "\(broker.port)", "-t", "owntracks/#", "-v"], log: folder.appendingPathComponent("sub.log"))
        let binary = try publisher ?? BenchmarkSupport.publisherBinary()
        let pub = try BenchmarkSupport.start(binary, [
            "--source", "gpx:\(track)", "--replay-speed", "20", "--user", "bench", "--device", "memory",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", folder.appendingPathComponent("o.sqlite").path,
            "--metrics-port", "0", "--power-supply-path", folder.path,
        ], log: folder.appendingPathComponent("pub.log"))
        var pubPeak = (rss: 0, hwm: 0, anon: 0)
        var subPeak = (rss: 0, hwm: 0, anon: 0)
        var samples = 0
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end, pub.isRunning {
            if let m = BenchmarkSupport.memory(of: pub.processIdentifier) { pubPeak = (max(pubPeak.rss, m.rss), max(pubPeak.hwm, m.hwm), max(pubPeak.anon, m.anon)); samples += 1 }
            if let m = BenchmarkSupport.memory(of: sub.processIdentifier) { subPeak = (max(subPeak.rss, m.rss), max(subPeak.hwm, m.hwm), max(subPeak.anon, m.anon)) }
            try await Task.sleep(for: .milliseconds(100))
        }
        pub.terminate()
        pub.waitUntilExit()
        kill(sub.processIdentifier, SIGKILL)
        guard samples > 0 else { throw BenchmarkError("no samples of whereabouts-pub") }
        print("binary: \(binary.path)")
        print("track: \(track), replay 20x, bounded(50m), \(samples) samples over up to \(seconds) s")
        print(String(format: "whereabouts-pub: VmRSS max %.1f MiB, VmHWM %.1f MiB, of which anonymous (heap, stacks) %.1f MiB",
                     Double(pubPeak.rss) / 1024, Double(pubPeak.hwm) / 1024, Double(pubPeak.anon) / 1024))
        print(String(format: "mosquitto_sub baseline: VmRSS max %.1f MiB, VmHWM %.1f MiB, of which anonymous %.1f MiB",
                     Double(subPeak.rss) / 1024, Double(subPeak.hwm) / 1024, Double(subPeak.anon) / 1024))
        print(String(format: "ratio whereabouts-pub / mosquitto_sub (anonymous): %.1f", Double(pubPeak.anon) / Double(max(1, subPeak.anon))))
        print(String(format: "ratio whereabouts-pub / mosquitto_sub (VmHWM): %.1f", Double(pubPeak.hwm) / Double(max(1, subPeak.hwm))))
        let peakBytes = Double(pubPeak.hwm) * 1024
        print(String(format: "target: under 30 MB (30,000,000 bytes): VmHWM is %.1f MB: %@",
                     peakBytes / 1e6, peakBytes < 30e6 ? "met" : "NOT met"))
    }
}
