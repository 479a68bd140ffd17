import Foundation
import Logging
import Testing
import WhereaboutsTestSupport
@testable import Outbox

/// The outbox's part of receipts (docs/receipts.md): sequence numbers in an epoch, acknowledged
/// entries kept until a receipt covers them, and queued again when none does.
@Suite("Outbox receipts")
struct OutboxReceiptTests {
    let logger = Logger(label: "test.outbox")

    private func payload(_ n: Int) -> Data { Data("{\"_type\":\"location\",\"tst\":\(n)}".utf8) }

    @Test("Every entry gets the next sequence number of the file's epoch, never reused after deletes or a reopen")
    func sequenceNumbers() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("outbox.sqlite")
        let epoch: String
        do {
            let outbox = try Outbox(path: path, logger: logger)
            epoch = outbox.epoch
            #expect(epoch.count == 16 && epoch.allSatisfy(\.isHexDigit), "\(epoch)")
            for n in 1...3 { _ = try await outbox.append(topic: "t", payload: payload(n), tst: n) }
            #expect(try await outbox.oldest(limit: 10).map(\.seq) == [1, 2, 3])
            // Emptied: SQLite would reuse row id 1, the sequence goes on.
            try await outbox.remove(ids: try await outbox.oldest(limit: 10).map(\.id))
            _ = try await outbox.append(topic: "t", payload: payload(4), tst: 4)
            #expect(try await outbox.oldest(limit: 10).map(\.seq) == [4])
        }
        let reopened = try Outbox(path: path, logger: logger)
        #expect(reopened.epoch == epoch)
        _ = try await reopened.append(topic: "t", payload: payload(5), tst: 5)
        #expect(try await reopened.oldest(limit: 10).map(\.seq) == [4, 5])
        // A new file is a new epoch: an old receipt cannot cover its reports.
        let other = try Outbox(path: dir.path("other.sqlite"), logger: logger)
        #expect(other.epoch != epoch)
    }

    @Test("Acknowledged entries stay until a receipt covers them, leave the send queue, and come back when queued again")
    func acknowledgedUntilConfirmed() async throws {
        let dir = try TemporaryDirectory()
        let outbox = try Outbox(path: dir.path("outbox.sqlite"), logger: logger)
        for n in 1...5 { _ = try await outbox.append(topic: "t", payload: payload(n), tst: 1000 + n) }
        let entries = try await outbox.oldest(limit: 10)
        let acknowledgedAt = Date(timeIntervalSince1970: 1_800_000_000)
        try await outbox.markAcknowledged(ids: entries.prefix(3).map(\.id), retained: entries[2], at: acknowledgedAt)
        #expect(try await outbox.oldest(limit: 10).map(\.seq) == [4, 5], "acknowledged entries are not sent again")
        #expect(outbox.depth == 5, "but kept")
        #expect(try await outbox.lastRetained()?.tst == 1003)
        var state = try await outbox.confirmation()
        #expect(state.settled == 1 && state.unconfirmed == 5 && state.acknowledged == 3)
        #expect(state.oldestAcknowledged == acknowledgedAt)
        #expect(state.oldestCommitted == entries[0].createdAt)

        #expect(try await outbox.removeConfirmed(through: 2) == 2)
        state = try await outbox.confirmation()
        #expect(state.settled == 3 && state.unconfirmed == 3 && state.acknowledged == 1)

        #expect(try await outbox.requeueAcknowledged() == 1)
        #expect(try await outbox.oldest(limit: 10).map(\.seq) == [3, 4, 5], "queued again, in order")
        #expect(try await outbox.confirmation().acknowledged == 0)

        try await outbox.markAcknowledged(ids: try await outbox.oldest(limit: 10).map(\.id))
        #expect(try await outbox.removeAcknowledged() == 3)
        state = try await outbox.confirmation()
        #expect(state.unconfirmed == 0 && state.settled == 6 && state.oldestCommitted == nil)
    }

    @Test("A version 1 outbox gets sequence numbers in its order and an epoch")
    func migratesToReceipts() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("v1.sqlite")
        try await OutboxTests.writeVersion1Outbox(at: path, tst: 1001)
        let outbox = try Outbox(path: path, logger: logger)
        #expect(outbox.epoch.count == 16)
        #expect(try await outbox.oldest(limit: 10).map(\.seq) == [1])
        _ = try await outbox.append(topic: "t", payload: payload(2), tst: 1002)
        #expect(try await outbox.oldest(limit: 10).map(\.seq) == [1, 2])
    }
}
