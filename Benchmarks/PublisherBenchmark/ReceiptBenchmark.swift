import Foundation
import GRDB
import Logging
import Outbox
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// What receipts cost (docs/receipts.md): the real whereabouts-pub draining the same backlog of N
/// reports to the real whereabouts-sub through one mosquitto, once with receipts off on both
/// (delete on PUBACK) and once on (the subscriber keeps a history; the publisher deletes a report
/// when a receipt covers it), in the same run. A plain MQTT client subscribed to the reports and
/// the receipts counts messages and bytes and times the reports' arrival.
struct ReceiptBenchmark {
    let fixes: Int

    struct Run {
        var label: String
        var seconds: Double
        var reports = 0
        var reportBytes = 0
        var receipts = 0
        var receiptBytes = 0
        var firstReport: ContinuousClock.Instant?
        var lastReport: ContinuousClock.Instant?
        var publishSeconds: Double {
            guard let firstReport, let lastReport else { return 0 }
            return (lastReport - firstReport).seconds
        }
    }

    func run() async throws {
        let folder = try BenchmarkSupport.temporaryFolder("receipts")
        defer { try? FileManager.default.removeItem(at: folder) }
        let broker = try await Broker.start(Broker.Options(maxQueuedMessages: 1_000_000))
        let circles = folder.appendingPathComponent("circles.yaml")
        try "circles:\n  - id: bench\n    members:\n      - user: bench\n        device: drain\n".write(to: circles, atomically: true, encoding: .utf8)
        var runs: [Run] = []
        // Off first, then on, then off again: the machine's load drifts between runs.
        for (index, receipts) in [false, true, false, true].enumerated() {
            runs.append(try await measure(receipts: receipts, index: index, broker: broker, folder: folder, circles: circles))
        }
        await broker.stop()
        print("backlog: \(fixes) reports, QoS 1, mosquitto on loopback; whereabouts-sub with --history (on) or without receipts (off)")
        for run in runs {
            print(String(format: "%@: drain to empty outbox %.2f s; reports %d (%d bytes, %.0f B each), publish throughput %.0f msg/s; receipts %d (%d bytes)",
                         run.label, run.seconds, run.reports, run.reportBytes, Double(run.reportBytes) / Double(max(1, run.reports)),
                         Double(run.reports) / max(run.publishSeconds, 1e-9), run.receipts, run.receiptBytes))
        }
    }

    private func measure(receipts: Bool, index: Int, broker: Broker, folder: URL, circles: URL) async throws -> Run {
        let outboxPath = folder.appendingPathComponent("outbox-\(index).sqlite").path
        try await DrainBenchmark.fill(outboxPath, fixes: fixes, device: "drain")
        let watcher = MQTTClient(configuration: broker.clientConfiguration(clientID: "watcher-\(index)"), logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await watcher.connect()
        try await watcher.subscribe(to: ["owntracks/bench/drain", "whereabouts/receipts/bench/drain/+"], qos: .atLeastOnce, timeout: .seconds(10))
        let messages = watcher.messages
        let counting = Task { () -> Run in
            var run = Run(label: receipts ? "receipts on " : "receipts off", seconds: 0)
            for await message in messages {
                if message.topic.hasPrefix("whereabouts/receipts/") {
                    // Live receipts only: not the retained one at subscribe, not the clearing below.
                    if !message.retained, !message.payload.isEmpty { run.receipts += 1; run.receiptBytes += message.payload.count + message.topic.utf8.count }
                } else {
                    run.reports += 1
                    run.reportBytes += message.payload.count + message.topic.utf8.count
                    let now = ContinuousClock.now
                    if run.firstReport == nil { run.firstReport = now }
                    run.lastReport = now
                }
            }
            return run
        }
        let subscriberBinary = BenchmarkSupport.productsFolder.appendingPathComponent("whereabouts-sub")
        let subscriber = try BenchmarkSupport.start(subscriberBinary, [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "bench-sub-\(index)",
            "--state-file", "none", "--log-level", "warning",
        ] + (receipts ? ["--history", folder.appendingPathComponent("history-\(index).sqlite").path] : ["--no-receipts"]),
            log: folder.appendingPathComponent("sub-\(index).log"))
        try await Task.sleep(for: .seconds(2))  // connected, subscribed, announced
        let track = try BenchmarkSupport.tinyTrack(in: folder)
        let start = ContinuousClock.now
        let publisher = try BenchmarkSupport.start(try BenchmarkSupport.publisherBinary(), [
            "--source", "gpx:\(track.path)", "--replay-speed", "max", "--user", "bench", "--device", "drain",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", outboxPath, "--log-level", "info",
            "--power-supply-path", folder.path, "--drain-timeout", "600",
        ] + (receipts ? [] : ["--no-receipts"]), log: folder.appendingPathComponent("pub-\(index).log"))
        publisher.waitUntilExit()
        let seconds = (ContinuousClock.now - start).seconds
        let left = try Outbox(path: outboxPath, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })).depth
        try await Task.sleep(for: .seconds(2))  // the last receipts reach the watcher
        subscriber.terminate()
        subscriber.waitUntilExit()
        // The subscriber's receipts are retained: clear them so that the next run starts afresh.
        try await watcher.publish(to: "whereabouts/receipts/bench/drain/bench-sub-\(index)", payload: Data(), qos: .atLeastOnce, retain: true, timeout: .seconds(10))
        await watcher.disconnect()
        var run = await counting.value
        run.seconds = seconds
        guard publisher.terminationStatus == 0, left == 0 else {
            throw BenchmarkError("whereabouts-pub exited \(publisher.terminationStatus) with \(left) left; logs in \(folder.path)")
        }
        return run
    }
}

/// The default of ``DrainBenchmark/fill(_:fixes:device:payload:)``: a payload per entry with its own `tst`.
enum ReceiptBenchmarkPayload {
    static let none = Data()
}
