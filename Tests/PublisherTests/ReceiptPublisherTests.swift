import Foundation
import Outbox
import OwnTracksCrypto
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
@testable import Publisher

/// The publisher's logic of receipts without I/O (docs/receipts.md): the stamp, the receipt book's
/// phases and coverage, and the retained-newest rule for reports sent again.
@Suite("Receipts on the publisher")
struct ReceiptPublisherTests {
    let confirmation = OutboxConfirmation(
        settled: 7, unconfirmed: 3, oldestCommitted: Date(timeIntervalSince1970: 1_800_000_000), acknowledged: 1,
        oldestAcknowledged: nil)

    @Test("The stamp is added to the JSON object; the location decodes unchanged and the fields read back")
    func stamp() throws {
        let report = Report(fix: Fix(time: Date(timeIntervalSince1970: 1_800_000_100), latitude: 52.5, longitude: -8.6,
                                     horizontalAccuracy: 4), trigger: .moving)
        let message = ReportEncoder(tid: "al", maxSilence: nil).message(for: report, mode: .active, battery: nil)
        let stored = ReportEncoder.encode(message)
        let stamped = ReceiptStamp(epoch: "0123456789abcdef", confirmation: confirmation, receiptsInUse: true).apply(to: stored, seq: 9)
        #expect(try JSONDecoder().decode(LocationMessage.self, from: stamped) == message)
        let object = try #require(try JSONSerialization.jsonObject(with: stamped) as? [String: Any])
        #expect(object["seq"] as? Int == 9)
        #expect(object["seq_epoch"] as? String == "0123456789abcdef")
        #expect(object["seq_settled"] as? Int == 7)
        #expect(object["unconfirmed"] as? Int == 3)
        #expect(object["unconfirmed_since"] as? Int == 1_800_000_000)
        // Before receipts are known to be in use: only the sequence fields.
        let plain = ReceiptStamp(epoch: "0123456789abcdef", confirmation: confirmation, receiptsInUse: false).apply(to: Data("{}".utf8), seq: 9)
        #expect(String(decoding: plain, as: UTF8.self) == #"{"seq":9,"seq_epoch":"0123456789abcdef","seq_settled":7}"#)
        // The stamp is sealed with the rest: the subscriber decrypts, then reads it.
        let key = try OwnTracksKey(secret: "receipts travel inside the encryption")
        let sealed = try PayloadSealer(key: key).seal(stamped)
        #expect(!String(decoding: sealed, as: UTF8.self).contains("seq_epoch"))
        #expect(try EncryptedMessage.open(sealed, with: key) == stamped)
    }

    private func receipt(_ subscriber: String, _ json: String) -> MQTTMessage {
        MQTTMessage(topic: "whereabouts/receipts/eve/phone/\(subscriber)", payload: Data(json.utf8), retained: true)
    }

    @Test("Undecided until a receipt comes or the wait after subscribing passes; then broker only")
    func phases() {
        let book = ReceiptBook(epoch: "aa", topic: "whereabouts/receipts/eve/phone", wait: .seconds(3))
        let start = ContinuousClock.now
        #expect(book.phase(now: start + .seconds(100)) == .undecided, "not subscribed yet: nothing is known")
        book.subscribed(at: start)
        #expect(book.phase(now: start + .seconds(2)) == .undecided)
        #expect(book.phase(now: start + .seconds(3)) == .brokerOnly)
        #expect(book.coverage == nil)
        // A subscriber that starts later announces itself: receipts from then on.
        #expect(book.receive(receipt("sub-a", #"{"_type":"receipt","tst":1800000000}"#)))
        #expect(book.phase() == .receipts)
        #expect(book.coverage == 0)
        // Cleared (the subscriber retired): back to the broker's word.
        #expect(book.receive(MQTTMessage(topic: "whereabouts/receipts/eve/phone/sub-a", payload: Data(), retained: true)))
        #expect(book.phase() == .brokerOnly)
        #expect(!book.receive(MQTTMessage(topic: "owntracks/eve/phone/cmd", payload: Data("{}".utf8))), "not a receipt")
    }

    @Test("Coverage is the lowest of every announced subscriber's receipt in this epoch; another epoch covers nothing")
    func coverage() {
        let book = ReceiptBook(epoch: "aa", topic: "whereabouts/receipts/eve/phone", wait: .seconds(3))
        book.receive(receipt("sub-a", #"{"_type":"receipt","seq_epoch":"aa","seq":12,"tst":1800000000}"#))
        #expect(book.coverage == 12)
        book.receive(receipt("sub-b", #"{"_type":"receipt","seq_epoch":"old","seq":500,"tst":1800000000}"#))
        #expect(book.coverage == 0, "sub-b confirmed nothing of this epoch")
        book.receive(receipt("sub-b", #"{"_type":"receipt","seq_epoch":"aa","seq":9,"tst":1800000001}"#))
        #expect(book.coverage == 9)
        // An announcement after a restart does not take back what was confirmed.
        book.receive(receipt("sub-a", #"{"_type":"receipt","tst":1800000002}"#))
        #expect(book.coverage == 9)
        #expect(book.subscriberCount == 2)
    }

    @Test("A report sent again is never retained over a newer fix already retained")
    func resentNotRetainedOverNewer() {
        let connected = Date(timeIntervalSince1970: 1_700_000_000)
        let payload = Data(#"{"_type":"location","lat":1,"lon":2,"tst":1700000050}"#.utf8)
        let older = OutboxEntry(id: 3, topic: "owntracks/a/p", payload: payload, tst: 1_700_000_050, createdAt: connected, seq: 3)
        // It is the newest row left (the newer report was confirmed and deleted) ...
        let plan = DeliveryPlan(entry: older, newestID: 3, connectedSince: connected, retried: true, retain: true,
                                retainedTST: 1_700_000_090)
        #expect(!plan.retain, "a newer fix (tst 1700000090) is retained already")
        #expect(plan.isBacklog)
        let newest = DeliveryPlan(entry: older, newestID: 3, connectedSince: connected, retried: true, retain: true,
                                  retainedTST: 1_700_000_050)
        #expect(newest.retain, "the same report may be retained again")
    }
}
