import Foundation
import GRDB
import Logging
import Outbox

/// Outbox cost per fix (append committed durably, then removed in drainer-sized batches) against
/// the bare SQLite work it stands on: one INSERT per transaction and batched DELETEs, on a file in
/// the same WAL + synchronous=FULL mode, through the same SQLite library, in the same run.
struct OutboxBenchmark {
    let fixes: Int
    let batch = 64

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wb-outbox-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let payload = Data(#"{"_type":"location","acc":5,"alt":12,"cog":90,"lat":52.123456,"lon":-8.654321,"m":2,"t":"t","tid":"al","tst":1700000000,"vel":36}"#.utf8)

        // Interleave the two a few times so that disk and load drift hit both alike.
        var outboxTimes: [Double] = []
        var rawTimes: [Double] = []
        for round in 0..<3 {
            rawTimes.append(try rawSQLite(path: folder.appendingPathComponent("raw\(round).sqlite").path, payload: payload))
            outboxTimes.append(try await outbox(path: folder.appendingPathComponent("outbox\(round).sqlite").path, payload: payload))
        }
        let outboxPerFix = outboxTimes.sorted()[1] / Double(fixes) * 1e6
        let rawPerFix = rawTimes.sorted()[1] / Double(fixes) * 1e6
        print("fixes per round: \(fixes), rounds: 3 (median shown)")
        print(String(format: "outbox append+remove per fix: %.1f µs", outboxPerFix))
        print(String(format: "raw SQLite insert+delete per fix (same WAL+FULL, same batching): %.1f µs", rawPerFix))
        print(String(format: "ratio outbox / raw: %.2f", outboxPerFix / rawPerFix))
    }

    private func outbox(path: String, payload: Data) async throws -> Double {
        let outbox = try Outbox(path: path, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        let start = ContinuousClock.now
        var pending: [Int64] = []
        for n in 0..<fixes {
            pending.append(try await outbox.append(topic: "owntracks/al/phone", payload: payload, tst: 1_700_000_000 + n).id)
            if pending.count == batch {
                try await outbox.remove(ids: pending)
                pending.removeAll()
            }
        }
        try await outbox.remove(ids: pending)
        return (ContinuousClock.now - start).seconds
    }

    private func rawSQLite(path: String, payload: Data) throws -> Double {
        var configuration = Configuration()
        configuration.journalMode = .wal
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // After the queue is made: GRDB sets NORMAL when it switches to WAL, after
        // prepareDatabase, so FULL set there never took effect (neither here nor, until it left
        // GRDB, in the outbox).
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, topic TEXT, payload BLOB, tst INTEGER, created_at REAL)")
        }
        let start = ContinuousClock.now
        try queue.writeWithoutTransaction { db in
            let insert = try db.makeStatement(sql: "INSERT INTO t (topic, payload, tst, created_at) VALUES (?, ?, ?, ?)")
            var pending: [Int64] = []
            for n in 0..<fixes {
                try insert.execute(arguments: ["owntracks/al/phone", payload, 1_700_000_000 + n, Date().timeIntervalSince1970])
                pending.append(db.lastInsertedRowID)
                if pending.count == batch {
                    try db.execute(sql: "DELETE FROM t WHERE id BETWEEN ? AND ?", arguments: [pending.first!, pending.last!])
                    pending.removeAll()
                }
            }
            if let first = pending.first, let last = pending.last {
                try db.execute(sql: "DELETE FROM t WHERE id BETWEEN ? AND ?", arguments: [first, last])
            }
        }
        return (ContinuousClock.now - start).seconds
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
