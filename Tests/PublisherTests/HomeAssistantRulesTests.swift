import Foundation
import Testing
import WhereaboutsCore
@testable import Publisher

/// Home Assistant's acceptance rules (``HomeAssistantOwnTracks``) on hand-made messages, so the
/// rules themselves are known to bite, and on every message type the publisher builds.
@Suite("Home Assistant acceptance rules")
struct HomeAssistantRulesTests {
    static let base = "owntracks/alice/phone"

    @Test("The rules catch what Home Assistant warns about or drops")
    func rulesBite() {
        func verdict(_ json: String, topic: String = HomeAssistantRulesTests.base) -> HomeAssistantOwnTracks.Verdict {
            HomeAssistantOwnTracks.verdict(topic: topic, payload: Data(json.utf8))
        }
        #expect(verdict(#"{"_type":"presence","state":"online","since":1,"tst":2}"#, topic: Self.base + "/presence")
                == .warning("Received unsupported message type: presence"))
        #expect(verdict(#"{"_type":"location","lat":1,"lon":2,"tst":3,"acc":0}"#)
                == .warning("Ignoring location update because GPS accuracy is zero"))
        #expect(verdict(#"{"_type":"location","lat":1,"lon":2,"tst":3}"#) == .silentlyDropped("acc missing"))
        #expect(verdict("not json") == .error("Unable to parse payload as JSON"))
        #expect(!verdict(#"{"_type":"encrypted","data":"AAAA"}"#).isQuiet, "no secret configured")
        #expect(verdict(#"{"tst":1}"#) == .warning("Received unsupported message type: None"))
        #expect(verdict(#"{"_type":"card","name":"A"}"#, topic: Self.base + "/info") == .quietlyIgnored("card"))
        #expect(verdict(#"{"_type":"location","lat":1,"lon":2,"tst":3,"acc":"5"}"#) == .locationUsed)
    }

    @Test("Every message type the publisher builds is used or quietly accepted")
    func everyPublisherMessage() throws {
        let report = Report(
            fix: Fix(time: Date(timeIntervalSince1970: 1_795_452_224), latitude: 52.1, longitude: -8.6),
            trigger: .requested)
        let encoder = ReportEncoder(tid: "al", maxSilence: nil)
        let location = ReportEncoder.encode(encoder.message(for: report, mode: .active, battery: nil))
        let messages: [(String, Data)] = [
            (Self.base, location),
            (Self.base, ReportEncoder.backlogPayload(location, tst: 1_795_452_224, now: Date())),
            (Self.base, ReportEncoder.encode(LastWillMessage(tst: 1_795_452_000))),
            (Self.base + "/presence", ReportEncoder.encode(PresenceMessage(state: .online, since: 1, tst: 2))),
            (Self.base + "/presence", ReportEncoder.encode(PresenceMessage(state: .offline, since: 1, tst: 2))),
            (Self.base + "/info", ReportEncoder.encode(CardMessage(name: "Alice", face: "iVBORw0KGgo=", tid: "al"))),
        ]
        for (topic, payload) in messages {
            let verdict = HomeAssistantOwnTracks.verdict(topic: topic, payload: payload)
            #expect(verdict.isQuiet, "\(topic) \(String(decoding: payload, as: UTF8.self)): \(verdict)")
            if topic == Self.base, payload == location {
                #expect(verdict == .locationUsed)
            }
        }
    }
}
