import Foundation
import Testing
import WhereaboutsCore
import SystemSupport
@testable import Subscriber

@Suite("Message decoder")
struct MessageDecoderTests {
    let decoder = MessageDecoder(settings: ViewSettings(futureTolerance: 300, maxPayloadBytes: 4096))
    let now = Date(timeIntervalSince1970: 1_700_000_100)

    func decode(_ text: String) throws(MessageRejectionReason) -> InboundMessage {
        try decoder.decode(Array(text.utf8), now: now)
    }

    @Test("A location as the publisher encodes it decodes to the same message")
    func publisherLocation() throws {
        let sent = LocationMessage(tid: "al", tst: 1_700_000_000, lat: 52.123456, lon: -8.654321, acc: 5, alt: 12, vel: 36,
                                   cog: 90, batt: 80, t: "t", m: 2, ve: 10.01, vn: -0.5, ms: 60)
        let decoded = try decoder.decode(Array(try JSONEncoder().encode(sent)), now: now)
        #expect(decoded == .location(sent))
        // With a turn rate (docs/policies.md, "A turn rate on the wire"), kept for the display.
        var turning = sent
        turning.tr = -12.5
        #expect(try decoder.decode(Array(try JSONEncoder().encode(turning)), now: now) == .location(turning))
    }

    @Test("OwnTracks presence, lwt, transition and card messages decode")
    func otherTypes() throws {
        #expect(try decode(#"{"_type":"lwt","tst":1700000000}"#) == .lastWill(tst: 1_700_000_000))
        #expect(try decode(#"{"_type":"presence","state":"offline","since":1699990000,"tst":1700000000}"#)
                == .presence(online: false, since: 1_699_990_000, tst: 1_700_000_000))
        // The presence shape since issue 10: `lwt` with a `state`, which Home Assistant accepts quietly.
        #expect(try decode(#"{"_type":"lwt","since":1699990000,"state":"online","tst":1700000000}"#)
                == .presence(online: true, since: 1_699_990_000, tst: 1_700_000_000))
        #expect(try decode(#"{"_type":"lwt","since":1699990000,"state":"offline","tst":1700000000}"#)
                == .presence(online: false, since: 1_699_990_000, tst: 1_700_000_000))
        #expect(try decode(#"{"_type":"transition","event":"enter","desc":"Home","tst":1700000000,"lat":1,"lon":2}"#)
                == .transition(event: "enter", region: "Home", tst: 1_700_000_000))
        // "hi" is no image: the face is dropped, the name kept.
        #expect(try decode(#"{"_type":"card","name":"Alice","face":"aGk="}"#) == .card(name: "Alice", face: nil))
        #expect(try decode(#"{"_type":"cmd","action":"reportLocation"}"#) == .ignored(type: "cmd"))
    }

    @Test("Bad payloads are rejected with a specific reason", arguments: [
        ("garbage", "malformed_json"),
        ("", "malformed_json"),
        ("[1,2,3]", "malformed_json"),
        (#"{"_type":"location","lat":NaN,"lon":1,"tst":1700000000}"#, "malformed_json"),
        (#"{"lat":1,"lon":1,"tst":1700000000}"#, "missing_type"),
        (#"{"_type":7}"#, "wrong_type._type"),
        (#"{"_type":"location","lat":"north","lon":1,"tst":1700000000}"#, "wrong_type.lat"),
        (#"{"_type":"location","lat":true,"lon":1,"tst":1700000000}"#, "wrong_type.lat"),
        (#"{"_type":"location","lat":52.1,"lon":1,"tst":"now"}"#, "wrong_type.tst"),
        (#"{"_type":"location","lat":91,"lon":1,"tst":1700000000}"#, "out_of_range.lat"),
        (#"{"_type":"location","lat":1,"lon":-180.5,"tst":1700000000}"#, "out_of_range.lon"),
        (#"{"_type":"location","lat":1,"lon":1,"tst":0}"#, "out_of_range.tst"),
        (#"{"_type":"location","lat":1,"lon":1,"tst":1700009000}"#, "future_timestamp"),
        (#"{"_type":"location","lat":1,"lon":1,"tst":1e400}"#, "out_of_range.tst"),
        (#"{"_type":"location","lat":1,"lon":1,"tst":1700000000} x"#, "malformed_json"),
        (#"{"_type":"location","lat":01,"lon":1,"tst":1700000000}"#, "malformed_json"),
        ("{\"_type\":\"loc\u{01}\"}", "malformed_json"),
        (#"{"_type":"location","lon":1,"tst":1700000000}"#, "missing_field.lat"),
        (#"{"_type":"location","lat":1,"lon":1}"#, "missing_field.tst"),
        (#"{"_type":"presence","state":"maybe","tst":1700000000}"#, "out_of_range.state"),
        (#"{"_type":"lwt","state":"maybe","tst":1700000000}"#, "out_of_range.state"),
        (#"{"_type":"location","lat":null,"lon":1,"tst":1700000000}"#, "missing_field.lat"),
    ])
    func rejected(payload: String, code: String) {
        #expect {
            try decode(payload)
        } throws: { error in
            (error as? MessageRejectionReason)?.code == code
        }
    }

    @Test("Unknown nested values, escapes and whitespace are accepted")
    func tolerant() throws {
        let text = #" { "_type" : "location", "tid":"\u00e9\"", "lat":1.5e1,"lon":-0.25, "tst":1700000000,"inregions":["Home",{"a":[true,false,null]}], "x":{} } "#
        guard case .location(let location, let regions) = try decode(text) else {
            Issue.record("not a location")
            return
        }
        #expect(regions == nil, "an array that is not all strings is skipped")
        #expect(location.tid == "é\"")
        #expect(location.lat == 15)
        #expect(location.lon == -0.25)
    }

    @Test("Deeply nested payloads are rejected, not a crash")
    func deep() {
        let text = #"{"_type":"card","x":"# + String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000) + "}"
        #expect(throws: MessageRejectionReason.malformedJSON) { try decode(text) }
    }

    @Test("Payloads over the limit are rejected before parsing")
    func oversize() {
        let huge = Array(repeating: UInt8(ascii: " "), count: 4097)
        #expect(throws: MessageRejectionReason.oversize(bytes: 4097, limit: 4096)) {
            try decoder.decode(huge, now: now)
        }
    }

    @Test("An iOS location with a point-of-interest photo (40 KB, over the 16 KiB default) keeps its fix; the photo is dropped and counted")
    func pointOfInterestPhoto() throws {
        let decoder = MessageDecoder(settings: ViewSettings(futureTolerance: 300))
        let text = OwnTracksPayloads.iosPointOfInterest(tst: 1_700_000_000)
        #expect(text.utf8.count > 40_000 && text.utf8.count > decoder.maxPayloadBytes)
        let decoded = try decoder.decodeReporting(Array(text.utf8), now: now)
        guard case .location(let location, let regions) = decoded.message else {
            Issue.record("not a location: \(decoded.message)")
            return
        }
        #expect(location.tst == 1_700_000_000 && location.lat == 52.6641 && location.lon == -8.6259)
        #expect(location.acc == 5 && location.vel == 4 && location.t == "u" && location.tid == "ev")
        #expect(regions == ["Home"])
        #expect(decoded.droppedFields == ["image"])
    }

    @Test("Only the photo may pass the limit: the same bulk in another field, a photo on a card-less type, or past the ceiling is rejected")
    func bulkRule() throws {
        let decoder = MessageDecoder(settings: ViewSettings(futureTolerance: 300))
        let photo = OwnTracksPayloads.jpegBase64(bytes: 30_000)
        let padded = #"{"_type":"location","lat":52.1,"lon":-8.6,"tst":1700000000,"tag":"\#(photo)"}"#
        #expect(throws: MessageRejectionReason.oversize(bytes: padded.utf8.count, limit: 16 * 1024)) {
            try decoder.decode(Array(padded.utf8), now: now)
        }
        // The photo does not count, the rest does: 17 KB of other fields are still too much.
        let both = #"{"_type":"location","lat":52.1,"lon":-8.6,"tst":1700000000,"image":"\#(photo)","tag":"\#(String(repeating: "x", count: 17_000))"}"#
        #expect(throws: MessageRejectionReason.oversize(bytes: both.utf8.count, limit: 16 * 1024)) {
            try decoder.decode(Array(both.utf8), now: now)
        }
        let transition = #"{"_type":"transition","event":"enter","tst":1700000000,"image":"\#(photo)"}"#
        #expect(throws: MessageRejectionReason.oversize(bytes: transition.utf8.count, limit: 16 * 1024)) {
            try decoder.decode(Array(transition.utf8), now: now)
        }
        let huge = OwnTracksPayloads.iosPointOfInterest(tst: 1_700_000_000, photoBytes: 400_000)
        #expect(throws: MessageRejectionReason.oversize(bytes: huge.utf8.count, limit: MessageDecoder.maxBulkPayloadBytes)) {
            try decoder.decode(Array(huge.utf8), now: now)
        }
        // Garbage over the limit without a bulk key is refused before parsing, as before.
        let garbage = Array(repeating: UInt8(ascii: "x"), count: 20_000)
        #expect(throws: MessageRejectionReason.oversize(bytes: 20_000, limit: 16 * 1024)) { try decoder.decode(garbage, now: now) }
    }
}

@Suite("Topics and shards")
struct TopicAndShardTests {
    @Test("Topics route to the member and sub-topic")
    func routes() {
        let router = TopicRouter()
        #expect(router.route("owntracks/alice/phone") == .init(member: Build.alice, subtopic: nil))
        #expect(router.route("owntracks/alice/phone/presence") == .init(member: Build.alice, subtopic: "presence"))
        #expect(router.route("owntracks/alice") == nil)
        #expect(router.route("owntracks/alice/phone/a/b") == nil)
        #expect(router.route("owntracksx/alice/phone") == nil)
        #expect(router.route("owntracks//phone") == nil)
        #expect(router.filters(for: Build.alice) == ["owntracks/alice/phone", "owntracks/alice/phone/+"])
        #expect(TopicRouter(prefix: "org/ot").route("org/ot/alice/phone") == .init(member: Build.alice, subtopic: nil))
    }

    @Test("FNV-1a matches the published test vectors")
    func fnv() {
        #expect(FNV1a.hash("".utf8) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash("foobar".utf8) == 0x8594_4171_f739_67e8)
    }

    @Test("Shards partition the circles", arguments: [1, 2, 3, 7])
    func partition(count: Int) throws {
        let ids = (0..<200).map { "circle-\($0)" }
        var owners = [Int](repeating: 0, count: ids.count)
        for index in 0..<count {
            let shard = try Shard(index: index, count: count)
            for (i, id) in ids.enumerated() where shard.owns(circleID: id) { owners[i] += 1 }
        }
        #expect(owners.allSatisfy { $0 == 1 })
    }

    @Test("Shard strings parse and bad ones are refused")
    func parsing() throws {
        #expect(try Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        for bad in ["4/4", "-1/2", "1", "a/b", "0/0"] {
            #expect(throws: ShardError.self) { try Shard(parsing: bad) }
        }
    }
}
