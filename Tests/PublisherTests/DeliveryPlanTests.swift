import Foundation
import Outbox
import Testing
import WhereaboutsCore
@testable import Publisher

@Suite("Delivery plan")
struct DeliveryPlanTests {
    let connected = Date(timeIntervalSince1970: 1_700_000_000)

    private func entry(id: Int64, tst: Int, createdAt: Date) -> OutboxEntry {
        let report = Report(fix: Fix(time: Date(timeIntervalSince1970: Double(tst)), latitude: 52.5, longitude: -8.6,
                                     horizontalAccuracy: 4), trigger: .moving)
        let message = ReportEncoder(tid: "al", maxSilence: nil).message(for: report, mode: .active, battery: nil)
        return OutboxEntry(id: id, topic: "owntracks/a/p", payload: ReportEncoder.encode(message), tst: tst, createdAt: createdAt)
    }

    private func decode(_ data: Data) throws -> LocationMessage { try JSONDecoder().decode(LocationMessage.self, from: data) }

    @Test("The newest entry made while connected goes out live: unchanged and retained")
    func live() {
        let e = entry(id: 5, tst: 1_700_000_100, createdAt: connected.addingTimeInterval(100))
        let plan = DeliveryPlan(entry: e, newestID: 5, connectedSince: connected, retried: false, retain: true)
        #expect(!plan.isBacklog)
        #expect(plan.retain)
        #expect(plan.payload == e.payload)
    }

    @Test("Older entries go out as backlog: not retained, created_at after tst")
    func backlogOlder() throws {
        let e = entry(id: 4, tst: 1_700_000_100, createdAt: connected.addingTimeInterval(100))
        let now = Date(timeIntervalSince1970: 1_700_000_100.2)
        let plan = DeliveryPlan(entry: e, newestID: 5, connectedSince: connected, retried: false, retain: true, now: now)
        #expect(plan.isBacklog)
        #expect(!plan.retain)
        let message = try decode(plan.payload)
        #expect(message.createdAt == 1_700_000_101, "created_at is strictly later than tst")
        var original = try decode(e.payload)
        original.createdAt = message.createdAt
        #expect(message == original, "nothing but created_at changes")
    }

    @Test("The newest entry is retained even as backlog (left from before the connection, or retried)")
    func backlogNewest() throws {
        let old = entry(id: 5, tst: 1_699_999_000, createdAt: connected.addingTimeInterval(-60))
        let plan = DeliveryPlan(entry: old, newestID: 5, connectedSince: connected, retried: false, retain: true,
                                now: connected.addingTimeInterval(1))
        #expect(plan.isBacklog && plan.retain)
        #expect(try decode(plan.payload).createdAt == 1_700_000_001)
        let retried = DeliveryPlan(entry: entry(id: 5, tst: 1_700_000_100, createdAt: connected.addingTimeInterval(100)),
                                   newestID: 5, connectedSince: connected, retried: true, retain: true)
        #expect(retried.isBacklog && retried.retain)
    }

    @Test("With retain off nothing is retained")
    func retainOff() {
        let e = entry(id: 5, tst: 1_700_000_100, createdAt: connected.addingTimeInterval(100))
        #expect(!DeliveryPlan(entry: e, newestID: 5, connectedSince: connected, retried: false, retain: false).retain)
    }

    @Test("The encoded location carries tid, acc above 0, tst, lat, lon, t and m; battery when known")
    func encoding() throws {
        let report = Report(fix: Fix(time: Date(timeIntervalSince1970: 1_700_000_000.7), latitude: 52.1234567, longitude: -8.6,
                                     speed: 10, course: 90), trigger: .firstPublish)
        let message = ReportEncoder(tid: "al", maxSilence: 60)
            .message(for: report, mode: .significant, battery: BatteryReading(level: 40, status: .charging))
        let json = String(decoding: ReportEncoder.encode(message), as: UTF8.self)
        #expect(json.hasPrefix(#"{"_type":"location","#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["tid"] as? String == "al")
        #expect((object["acc"] as? Int ?? 0) > 0)
        #expect(object["tst"] as? Int == 1_700_000_000)
        #expect(object["lat"] as? Double == 52.123457)
        #expect(object["vel"] as? Int == 36)
        #expect(object["cog"] as? Int == 90)
        #expect(object["t"] as? String == "f")
        #expect(object["m"] as? Int == 1)
        #expect(object["batt"] as? Int == 40)
        #expect(object["bs"] as? Int == 2)
        #expect(object["created_at"] == nil)
    }
}
