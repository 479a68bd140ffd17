import Foundation
import GRDB
import Logging
import Testing
import WhereaboutsTestSupport
@testable import Outbox

/// The outbox file deleted or replaced under a running outbox (real SQLite files): the next
/// commit fails with an error that names the file and what to do, and nothing is committed into
/// the superseded file (SQLite, in WAL mode, would otherwise go on writing into the old inode).
@Suite("Outbox: its file superseded while open")
struct OutboxSupersededFileTests {
    enum Change: String, CaseIterable, Sendable {
        /// Another file renamed over the path (a restore from a backup, a copy put in place).
        case replaced
        /// The file deleted (its `-wal` and `-shm` left).
        case deleted
    }

    @Test("The next commit fails with a clear error; nothing is written into the superseded file", arguments: Change.allCases)
    func superseded(_ change: Change) async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("o.sqlite")
        let outbox = try Outbox(path: path, logger: Logger(label: "test.superseded"))
        _ = try await outbox.append(topic: "owntracks/alice/phone", payload: Data("{}".utf8), tst: 1)
        let aside = dir.path("aside.sqlite")
        switch change {
        case .replaced:
            // A second outbox with one report of its own, renamed over the path.
            do {
                let other = try Outbox(path: aside, logger: Logger(label: "test.other"))
                _ = try await other.append(topic: "owntracks/bob/phone", payload: Data("{}".utf8), tst: 7)
            }
            try FileManager.default.removeItem(atPath: path)
            for suffix in ["-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
                try? FileManager.default.moveItem(atPath: aside + suffix, toPath: path + suffix)
            }
            try FileManager.default.moveItem(atPath: aside, toPath: path)
        case .deleted:
            try FileManager.default.removeItem(atPath: path)
        }
        var failure: OutboxError?
        do {
            _ = try await outbox.append(topic: "owntracks/alice/phone", payload: Data("{}".utf8), tst: 2)
        } catch {
            failure = error
        }
        let error = try #require(failure, "a commit into the superseded file must fail")
        guard case let .database(errorPath, reason) = error else {
            Issue.record("expected .database, got \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(reason.contains("deleted or replaced while it was open") && reason.contains("Restart"), "\(error)")
        #expect(error.description.contains(path))
        // The outbox still fails (it does not quietly carry on with the old inode).
        await #expect(throws: OutboxError.self) {
            _ = try await outbox.append(topic: "owntracks/alice/phone", payload: Data("{}".utf8), tst: 3)
        }
        if change == .replaced {
            // The file now at the path holds what it held, nothing of ours.
            var configuration = GRDB.Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            #expect(try await queue.read { db in try Int.fetchAll(db, sql: "SELECT tst FROM report ORDER BY tst") } == [7])
            try queue.close()
        }
    }
}
