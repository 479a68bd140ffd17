import CMosquittoBaseline
import Foundation
import GRDB
import Logging
import Outbox
import WhereaboutsTestSupport

/// Time to drain a backlog of N reports at QoS 1 with the real whereabouts-pub (outbox read,
/// publish, PUBACK, batched delete), against the MQTT team's C libmosquitto loop publishing the
/// same number of same-sized messages to the same broker in the same run (one in flight, and with
/// a window of 20, the drainer's default `--max-in-flight`).
struct DrainBenchmark {
    let fixes: Int

    func run() async throws {
        let folder = try BenchmarkSupport.temporaryFolder("drain")
        defer { try? FileManager.default.removeItem(at: folder) }
        let broker = try await Broker.start()
        defer { Task { await broker.stop() } }
        let payload = Data(#"{"_type":"location","acc":5,"alt":12,"cog":90,"lat":52.123456,"lon":-8.654321,"m":2,"t":"t","tid":"al","tst":1700000000,"vel":36}"#.utf8)
        let outboxPath = folder.appendingPathComponent("outbox.sqlite").path
        try await Self.fill(outboxPath, fixes: fixes, device: "drain", payload: payload)

        // C baseline, same broker, same payload size.
        let c1 = whereabouts_c_publish_benchmark(broker.host, Int32(broker.port), "c-baseline-1", "bench/c1", fixes, 1, 1, 20, Int32(payload.count))
        let c20 = whereabouts_c_publish_benchmark(broker.host, Int32(broker.port), "c-baseline-20", "bench/c20", fixes, 1, 20, 20, Int32(payload.count))
        guard c1.error == 0, c20.error == 0 else { throw BenchmarkError("the C baseline failed: \(c1.error) \(c20.error)") }

        // The real publisher: a track that commits nothing, so it drains the backlog and exits.
        let track = try BenchmarkSupport.tinyTrack(in: folder)
        let log = folder.appendingPathComponent("pub.log")
        let start = ContinuousClock.now
        let pub = try BenchmarkSupport.start(try BenchmarkSupport.publisherBinary(), [
            "--source", "gpx:\(track.path)", "--replay-speed", "max", "--user", "bench", "--device", "drain",
            "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", outboxPath, "--log-level", "info",
            "--power-supply-path", folder.path, "--drain-timeout", "600",
        ], log: log)
        pub.waitUntilExit()
        let publisherSeconds = (ContinuousClock.now - start).seconds
        let left = try Outbox(path: outboxPath, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })).depth
        guard pub.terminationStatus == 0, left == 0 else {
            throw BenchmarkError("whereabouts-pub exited \(pub.terminationStatus) with \(left) left; log: \(log.path)")
        }
        print("backlog: \(fixes) reports of \(payload.count) bytes, QoS 1, broker mosquitto on loopback")
        print(String(format: "whereabouts-pub drain (process start to exit, outbox emptied): %.2f s (%.0f msg/s)", publisherSeconds, Double(fixes) / publisherSeconds))
        print(String(format: "C libmosquitto baseline, 1 in flight: %.2f s (%.0f msg/s)", c1.seconds, Double(fixes) / c1.seconds))
        print(String(format: "C libmosquitto baseline, window 20: %.2f s (%.0f msg/s)", c20.seconds, Double(fixes) / c20.seconds))
        print(String(format: "ratio whereabouts-pub / C (1 in flight): %.2f", publisherSeconds / c1.seconds))
        print(String(format: "ratio whereabouts-pub / C (window 20): %.2f", publisherSeconds / c20.seconds))
    }

    /// The 129-byte location the benchmarks' backlogs hold.
    static let payload = Data(#"{"_type":"location","acc":5,"alt":12,"cog":90,"lat":52.123456,"lon":-8.654321,"m":2,"t":"t","tid":"al","tst":1700000000,"vel":36}"#.utf8)

    /// Creates the outbox and fills it with `fixes` entries (sequence numbers 1...fixes) in one
    /// transaction (set-up, not measured). Each entry has its own `tst` in its payload, so that
    /// a subscriber stores each one.
    static func fill(_ path: String, fixes count: Int, device: String, payload: Data = ReceiptBenchmarkPayload.none) async throws {
        _ = try Outbox(path: path, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO report (topic, payload, tst, created_at, seq) VALUES (?, ?, ?, ?, ?)")
            let now = Date().timeIntervalSince1970 - 3600
            for n in 0..<count {
                let tst = 1_700_000_000 + n
                let body = payload.isEmpty ? Data(String(decoding: Self.payload, as: UTF8.self)
                    .replacingOccurrences(of: "1700000000", with: "\(tst)").utf8) : payload
                try insert.execute(arguments: ["owntracks/bench/\(device)", body, tst, now, n + 1])
            }
            try db.execute(sql: "UPDATE progress SET newest_tst = ?", arguments: [1_700_000_000 + count])
            try db.execute(sql: "UPDATE progress SET next_seq = ?", arguments: [count + 1])
        }
    }
}
