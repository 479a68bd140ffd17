import Foundation
import Testing
import WhereaboutsMQTT
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

/// Ingest with receipts on a real store: what is noted, and what the member's view says.
@Suite("Receipts in ingest")
struct ReceiptIngestTests {
    @Test("A stamped location is noted and its unconfirmed counts reach the member's view; a rejected one is covered too")
    func ingestNotesStamps() async throws {
        let store = try Build.store()
        let ledger = ReceiptLedger()
        let intake = ReceiptIntake(ledger: ledger, statusFile: false)
        let router = TopicRouter(prefix: "owntracks")
        let decoder = MessageDecoder()
        let now = Date()
        let tst = Int(now.timeIntervalSince1970) - 30
        func location(seq: Int, lat: String = "52.1", tst: Int) -> MQTTMessage {
            MQTTMessage(topic: "owntracks/alice/phone", payload: Data(#"""
                {"_type":"location","tid":"ph","lat":\#(lat),"lon":-8.6,"acc":5,"tst":\#(tst),"seq":\#(seq),"seq_epoch":"e1","seq_settled":1,"unconfirmed":3,"unconfirmed_since":\#(tst - 300)}
                """#.utf8))
        }
        _ = await store.ingest(location(seq: 1, tst: tst), router: router, decoder: decoder, receipts: intake, at: now)
        // Seq 2 is out of range: rejected and counted, and covered all the same.
        _ = await store.ingest(location(seq: 2, lat: "95", tst: tst + 1), router: router, decoder: decoder, receipts: intake, at: now)
        let alice = MemberID(user: "alice", device: "phone")
        #expect(ledger.takeDue(durableThrough: 0) == [.init(member: alice, epoch: "e1", seq: 2)])
        let view = try #require(await store.view(id: "family", at: now))
        let member = try #require(view.members.first { $0.user == "alice" })
        #expect(member.unconfirmed == 3)
        #expect(member.unconfirmedSince == tst - 300)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(member)) as? [String: Any])
        #expect(json["unconfirmed"] as? Int == 3)
    }
}
