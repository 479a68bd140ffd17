import Foundation
import GRDB
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport
@testable import Subscriber

/// The history file deleted or replaced under a running store (real SQLite files): the next
/// write fails with an error that names the file and what to do, the store says it cannot write
/// (so the subscriber stops taking messages), and nothing is committed into the superseded file.
@Suite("History: its file superseded while open")
struct HistorySupersededFileTests {
    @Test("The next write fails with a clear error; nothing is written into the superseded file", arguments: [true, false])
    func superseded(replaced: Bool) async throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "history-superseded")
        let path = folder.appendingPathComponent("history.sqlite").path
        let store = try HistoryStore(path: path, logger: Build.quietLogger)
        #expect(try await store.write([HistoryStoreTests.row(Build.alice, Build.t0)]) == 1)
        if replaced {
            // Another history with a row of its own, renamed over the path (a restored backup).
            let asidePath = folder.appendingPathComponent("aside.sqlite").path
            do {
                let other = try HistoryStore(path: asidePath, logger: Build.quietLogger)
                #expect(try await other.write([HistoryStoreTests.row(Build.bob, Build.t0 + 7)]) == 1)
            }
            try FileManager.default.removeItem(atPath: path)
            for suffix in ["-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
                try? FileManager.default.moveItem(atPath: asidePath + suffix, toPath: path + suffix)
            }
            try FileManager.default.moveItem(atPath: asidePath, toPath: path)
        } else {
            try FileManager.default.removeItem(atPath: path)
        }
        var failure: HistoryError?
        do {
            _ = try await store.write([HistoryStoreTests.row(Build.alice, Build.t0 + 1)])
        } catch {
            failure = error
        }
        let error = try #require(failure, "a write into the superseded file must fail")
        guard case let .database(errorPath, reason) = error else {
            Issue.record("expected .database, got \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(reason.contains("deleted or replaced while it was open") && reason.contains("Restart"), "\(error)")
        #expect(store.isWritable == false, "the intake gate sees the store cannot write")
        if replaced {
            var configuration = GRDB.Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            #expect(try await queue.read { db in try Int.fetchAll(db, sql: "SELECT tst FROM location ORDER BY tst") } == [Build.t0 + 7])
            try queue.close()
        }
    }
}
