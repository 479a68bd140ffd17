import Foundation
import Testing
import WhereaboutsCore
@testable import Subscriber

@Suite("Circle view contract")
struct ViewContractTests {
    @Test("A view encodes with the field names of the contract and decodes back")
    func roundTrip() throws {
        let fix = LocationMessage(tid: "al", tst: 1_700_000_000, lat: 52.1, lon: -8.6, acc: 5, alt: 12, vel: 36, cog: 90,
                                  batt: 80, t: "t", ve: 10, vn: 0, ms: 60)
        let member = MemberView(
            user: "alice", device: "phone", name: "Alice", color: "#e6194b", tid: "al", status: .online,
            statusSince: 1_699_999_000, fix: FixView(fix), age: 0.5, speed: 10, course: 90,
            display: DisplayPosition(lat: 52.1, lon: -8.599, extrapolated: true),
            trail: [TrailPoint(tst: 1_699_999_990, lat: 52.1, lon: -8.601)])
        let view = CircleView(circle: CircleSummary(id: "family", name: "Family"), generatedAt: 1_700_000_000.5, members: [member])
        let data = try JSONEncoder().encode(view)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["_type"] as? String == "view")
        #expect(Set(object.keys) == ["_type", "circle", "generatedAt", "members", "places"])
        let first = try #require((object["members"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["user", "device", "name", "color", "tid", "status", "statusSince", "fix", "age",
                                    "speed", "course", "display", "trail", "inregions", "cardName", "face",
                                    "place", "placeSince", "due", "privacy", "unconfirmed", "unconfirmedSince"])
        let fixObject = try #require(first["fix"] as? [String: Any])
        #expect(Set(fixObject.keys) == ["tst", "lat", "lon", "acc", "alt", "vel", "cog", "t", "batt", "ve", "vn", "ms"])
        #expect(try JSONDecoder().decode(CircleView.self, from: data) == view)
    }

    @Test("A member never heard from has null fix, age and display")
    func unknownMember() throws {
        let view = MemberView(user: "bob", device: "phone", name: "Bob", status: .unknown)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(view)) as? [String: Any])
        #expect(object["fix"] is NSNull)
        #expect(object["display"] is NSNull)
        #expect(object["status"] as? String == "unknown")
    }

    @Test("An event encodes as the contract says")
    func event() throws {
        let event = CircleEvent(circle: "family", user: "alice", device: "phone", event: .stale, tst: 1_700_000_000)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(event)) as? [String: Any])
        #expect(object["_type"] as? String == "event")
        #expect(object["event"] as? String == "stale")
        #expect(object["circle"] as? String == "family")
        #expect(object["region"] == nil, "region only on enter/leave")
        let enter = CircleEvent(circle: "family", user: "alice", device: "phone", event: .enter, tst: 1_700_000_000, region: "Home")
        let enterObject = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(enter)) as? [String: Any])
        #expect(enterObject["event"] as? String == "enter" && enterObject["region"] as? String == "Home")
    }
}
