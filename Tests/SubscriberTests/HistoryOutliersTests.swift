import Foundation
import Logging
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// Outliers rejected at ingest (future time, poor accuracy, implied speed) against a real SQLite
/// file: kept aside, never among the locations, under the same retention and cap, restorable in
/// one audited transaction.
@Suite("History: outliers kept aside (real SQLite)")
struct HistoryOutliersTests {
    static func message(_ topic: String, _ json: String) -> MQTTMessage {
        MQTTMessage(topic: topic, payload: Data(json.utf8), qos: .atLeastOnce, retained: false)
    }

    static func rejectedRow(_ member: MemberID, _ tst: Int, reason: String = "implied_speed") -> HistoryRow {
        .rejected(member, LocationMessage(tid: "al", tst: tst, lat: 53.35, lon: -6.26, acc: 8, vel: 36, batt: 80, t: "u"),
                  reason: reason, receivedAt: Double(tst + 2))
    }

    @Test("The rules: accuracy worse than the limit, a speed no device makes from the live fix; older fixes and plausible jumps pass")
    func rules() {
        let rules = OutlierRules(settings: ViewSettings(maxAccuracy: 1_000, maxImpliedSpeed: 100))
        let live = LocationMessage(tid: "al", tst: 1_700_000_000, lat: 52.6638, lon: -8.6267, acc: 10)
        func fix(_ dt: Int, lat: Double, acc: Int = 10) -> LocationMessage {
            LocationMessage(tid: "al", tst: 1_700_000_000 + dt, lat: lat, lon: -8.6267, acc: acc)
        }
        #expect(rules.violation(of: fix(10, lat: 52.6638, acc: 1_001), after: live) == .poorAccuracy(metres: 1_001, limit: 1_000))
        #expect(rules.violation(of: fix(10, lat: 52.6638, acc: 1_000), after: live) == nil)
        // 0.1 degree of latitude is about 11.1 km: in 10 s 1,112 m/s, in 200 s 56 m/s.
        if case .impliedSpeed(let speed, 100)? = rules.violation(of: fix(10, lat: 52.7638), after: live) {
            #expect(abs(speed - 1_112) < 5)
        } else {
            Issue.record("a jump of 11 km in 10 s is an outlier")
        }
        #expect(rules.violation(of: fix(200, lat: 52.7638), after: live) == nil)
        #expect(rules.violation(of: fix(-10, lat: 52.7638), after: live) == nil, "backlog older than the live fix is not judged by speed")
        #expect(rules.violation(of: fix(10, lat: 52.7638), after: nil) == nil, "the first fix has nothing to be judged against")
        let off = OutlierRules(settings: ViewSettings(maxAccuracy: nil, maxImpliedSpeed: nil))
        #expect(off.violation(of: fix(1, lat: 60, acc: 1_000_000), after: live) == nil)
    }

    @Test("Ingest keeps outliers aside (with their reason), never among the locations; counted by reason; malformed input is not kept")
    func ingestKeepsOutliersAside() async throws {
        let store = try HistoryStoreTests.open()
        let views = try Build.store()
        let writer = HistoryWriter(store: store, views: views, logger: Build.quietLogger)
        let ingestor = Ingestor(
            store: views, router: TopicRouter(), settings: ViewSettings(maxAccuracy: 5_000, maxImpliedSpeed: 350), history: writer.recorder)
        let running = Task { try await writer.run() }
        let now = Int(Date().timeIntervalSince1970)
        let topic = "owntracks/alice/phone"
        await ingestor.handle(Self.message(topic, OwnTracksPayloads.androidLocation(tst: now - 30)))
        await ingestor.handle(Self.message(topic, OwnTracksPayloads.androidLocation(tst: now + 3_600)))  // future
        await ingestor.handle(Self.message(topic, OwnTracksPayloads.androidLocation(tst: now - 25, lat: 53.3498, lon: -6.2603)))  // Dublin in 5 s
        await ingestor.handle(Self.message(topic, #"{"_type":"location","acc":25000,"lat":52.67,"lon":-8.61,"tid":"dv","tst":\#(now - 20)}"#))
        await ingestor.handle(Self.message(topic, #"{"_type":"location","lat":99,"lon":0,"tst":\#(now - 19)}"#))  // malformed: not kept
        await ingestor.handle(Self.message(topic, OwnTracksPayloads.androidLocation(tst: now - 10)))
        running.cancel()
        try await withTimeout(.seconds(10), "the history writer") { try await running.value }

        #expect(try await store.locations(of: Build.alice, from: 0, to: .max, limit: 10).map(\.fix.tst) == [now - 30, now - 10])
        let rejected = try await store.rejectedLocations(of: Build.alice, from: 0, to: .max, limit: 10)
        #expect(rejected.map(\.location.fix.tst) == [now - 25, now - 20, now + 3_600])
        #expect(rejected.map(\.reason) == ["implied_speed", "poor_accuracy", "future_timestamp"])
        #expect(rejected[0].location.fix.lat == 53.3498 && rejected[0].location.fix.batt == 91 && rejected[1].location.fix.acc == 25_000)
        let stats = await views.statistics()
        #expect(stats.rejected["implied_speed"] == 1 && stats.rejected["poor_accuracy"] == 1 && stats.rejected["future_timestamp"] == 1)
        #expect(stats.rejected["out_of_range.lat"] == 1)
        // Shown nowhere: the live fix, the trail and the circle's view hold only accepted fixes.
        #expect(await views.liveFix(of: Build.alice)?.tst == now - 10)
        #expect(await views.trail(circle: "family", user: "alice", device: "phone")?.map(\.tst) == [now - 30, now - 10])
        let view = await views.view(id: "family")
        #expect(view?.members.first { $0.user == "alice" }?.fix?.tst == now - 10)
        let metrics = String(decoding: await views.renderMetrics(), as: UTF8.self)
        #expect(metrics.contains(#"whereabouts_sub_history_rows_total{outcome="kept_aside"} 3"#), "\(metrics)")
        #expect(metrics.contains(#"whereabouts_sub_history_rows_total{outcome="stored"} 2"#))
        #expect(metrics.contains(#"whereabouts_sub_ingest_total{outcome="rejected",reason="implied_speed"} 1"#))
    }

    @Test("Restore moves one point or a range into the history in tst order and audits it in the same transaction; the future stays")
    func restore() async throws {
        let store = try HistoryStoreTests.open()
        let t0 = Build.t0
        _ = try await store.write([HistoryStoreTests.row(Build.alice, t0), HistoryStoreTests.row(Build.alice, t0 + 30)])
        _ = try await store.write([
            Self.rejectedRow(Build.alice, t0 + 10), Self.rejectedRow(Build.alice, t0 + 20, reason: "poor_accuracy"),
            Self.rejectedRow(Build.alice, t0 + 30), Self.rejectedRow(Build.alice, t0 + 90, reason: "future_timestamp"),
            Self.rejectedRow(Build.bob, t0 + 10),
        ])
        let one = try await store.restoreRejected(of: Build.alice, from: t0 + 10, to: t0 + 10, notAfter: t0 + 60, actor: "alice", client: "::1", at: 1)
        #expect(one.restored == 1 && one.duplicates == 0 && one.stillInFuture == 0 && one.audit.action == "restore" && one.audit.removed == 1)
        let range = try await store.restoreRejected(of: Build.alice, from: t0 + 11, to: t0 + 100, notAfter: t0 + 60, actor: "bob", client: "::1", at: 2)
        // t0+20 restored; t0+30 already stored (the stored copy kept); t0+90 still in the future.
        #expect(range.restored == 1 && range.duplicates == 1 && range.stillInFuture == 1 && range.audit.removed == 2)
        let locations = try await store.locations(of: Build.alice, from: 0, to: .max, limit: 10)
        #expect(locations.map(\.fix.tst) == [t0, t0 + 10, t0 + 20, t0 + 30])
        #expect(locations[1].fix.lat == 53.35 && locations[1].fix.t == "u" && locations[1].receivedAt == Double(t0 + 12))
        #expect(locations[3].fix.lat == 52.0, "the copy already stored is kept")
        #expect(try await store.rejectedLocations(of: Build.alice, from: 0, to: .max, limit: 10).map(\.location.fix.tst) == [t0 + 90])
        #expect(try await store.rejectedLocations(of: Build.bob, from: 0, to: .max, limit: 10).count == 1, "another member's untouched")
        #expect(try await store.auditLog().map { "\($0.action) \($0.actor) \($0.removed)" } == ["restore bob 2", "restore alice 1"])
        #expect(try await store.lastLocations(user: "alice").map(\.fix.tst) == [t0 + 30])
    }

    @Test("Retention and the size cap remove old rejected outliers like old locations")
    func retentionAndCap() async throws {
        let store = try HistoryStoreTests.open()
        let day = 86_400
        let now = Build.t0
        _ = try await store.write([
            Self.rejectedRow(Build.alice, now - 40 * day), Self.rejectedRow(Build.alice, now - day),
            HistoryStoreTests.row(Build.alice, now - 40 * day + 1), HistoryStoreTests.row(Build.alice, now - day + 1),
        ])
        let views = try Build.store()
        let writer = HistoryWriter(store: store, retention: HistoryRetention(days: 30), views: views, logger: Build.quietLogger)
        await writer.applyRetention(now: Build.date(now))
        #expect(try await store.rejectedLocations(of: Build.alice, from: 0, to: .max, limit: 10).map(\.location.fix.tst) == [now - day])
        let metrics = String(decoding: await views.renderMetrics(), as: UTF8.self)
        #expect(metrics.contains(#"whereabouts_sub_history_rows_total{outcome="expired"} 2"#), "\(metrics)")

        // The cap: 20,000 rejected and 20,000 accepted points; the oldest of both go first.
        let capped = try HistoryStoreTests.open()
        for batch in 0..<10 {
            _ = try await capped.write((0..<2000).flatMap { i in
                [HistoryStoreTests.row(Build.alice, now + batch * 2000 + i), Self.rejectedRow(Build.bob, now + batch * 2000 + i)]
            })
        }
        let cap = try await capped.usedBytes() / 3
        let capWriter = HistoryWriter(store: capped, retention: HistoryRetention(days: 0, maxBytes: cap), views: views, logger: Build.quietLogger)
        await capWriter.applyRetention(now: Build.date(now))
        #expect(try await capped.usedBytes() <= cap)
        let kept = try await capped.rejectedLocations(of: Build.bob, from: 0, to: .max, limit: 100_000).map(\.location.fix.tst)
        #expect(!kept.isEmpty && kept.count < 20_000 && kept.last == now + 19_999)
        #expect(kept == Array((now + 20_000 - kept.count)..<(now + 20_000)))
    }
}
