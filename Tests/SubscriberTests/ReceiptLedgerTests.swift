import Foundation
import Testing
@testable import Subscriber

/// The subscriber's record of what it took in, for receipts (docs/receipts.md), without I/O.
@Suite("Receipt ledger")
struct ReceiptLedgerTests {
    let eve = MemberID(user: "eve", device: "phone")

    private func stamp(_ seq: Int64, epoch: String = "aa", settled: Int64 = 1) -> ReportStamp {
        ReportStamp.read(Array(#"{"_type":"location","seq":\#(seq),"seq_epoch":"\#(epoch)","seq_settled":\#(settled)}"#.utf8))!
    }

    @Test("A receipt covers only an unbroken run of durable reports: a gap or an uncommitted row holds it back")
    func contiguous() {
        let ledger = ReceiptLedger()
        ledger.note(stamp(1), of: eve, ticket: 1)
        ledger.note(stamp(2), of: eve, ticket: 2)
        ledger.note(stamp(4), of: eve, ticket: 3)  // 3 was lost on the way
        #expect(ledger.takeDue(durableThrough: 0).isEmpty, "nothing committed yet")
        #expect(ledger.takeDue(durableThrough: 3) == [.init(member: eve, epoch: "aa", seq: 2)])
        ledger.note(stamp(3), of: eve, ticket: 4)  // sent again
        #expect(ledger.takeDue(durableThrough: 3).isEmpty, "3 is not committed yet")
        #expect(ledger.takeDue(durableThrough: 4) == [.init(member: eve, epoch: "aa", seq: 4)])
        #expect(ledger.takeDue(durableThrough: 10).isEmpty, "nothing new: no receipt")
    }

    @Test("A resent duplicate of a covered report is answered again; a row the history dropped is never covered until sent again")
    func duplicatesAndDrops() {
        let ledger = ReceiptLedger()
        ledger.note(stamp(1), of: eve, ticket: 1)
        #expect(ledger.takeDue(durableThrough: 1).map(\.seq) == [1])
        ledger.note(stamp(1), of: eve, ticket: 2)
        #expect(ledger.takeDue(durableThrough: 1).map(\.seq) == [1], "the duplicate is answered")
        ledger.note(stamp(2), of: eve, ticket: nil)  // the history's backlog was full
        #expect(ledger.takeDue(durableThrough: 100).isEmpty)
        ledger.note(stamp(2), of: eve, ticket: 3)
        #expect(ledger.takeDue(durableThrough: 3).map(\.seq) == [2])
    }

    @Test("What the publisher says is settled is not waited for; a new epoch starts over")
    func settledAndEpoch() {
        let ledger = ReceiptLedger()
        ledger.note(stamp(40, settled: 38), of: eve, ticket: 0)
        #expect(ledger.takeDue(durableThrough: 0) == [.init(member: eve, epoch: "aa", seq: 37)], "37 and below settled; 38 and 39 not seen")
        let fresh = ReceiptLedger()
        fresh.note(stamp(40, settled: 40), of: eve, ticket: 0)
        #expect(fresh.takeDue(durableThrough: 0) == [.init(member: eve, epoch: "aa", seq: 40)])
        fresh.note(stamp(1, epoch: "bb"), of: eve, ticket: 0)
        #expect(fresh.takeDue(durableThrough: 0) == [.init(member: eve, epoch: "bb", seq: 1)], "the outbox was recreated")
    }

    @Test("Without a history, the status file's save after a report makes it durable")
    func statusGenerations() {
        let ledger = ReceiptLedger()
        ledger.note(stamp(1), of: eve, ticket: ledger.statusTicket)
        #expect(ledger.takeDue(durableThrough: ledger.statusDurableThrough).isEmpty)
        let generation = ledger.beginStatusSave()
        ledger.note(stamp(2), of: eve, ticket: ledger.statusTicket)  // after the snapshot began
        ledger.statusSaved(generation)
        #expect(ledger.takeDue(durableThrough: ledger.statusDurableThrough).map(\.seq) == [1])
        ledger.statusSaved(ledger.beginStatusSave())
        #expect(ledger.takeDue(durableThrough: ledger.statusDurableThrough).map(\.seq) == [2])
    }
}
