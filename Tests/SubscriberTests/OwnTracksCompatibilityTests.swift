import Subscriber
import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Messages shaped field for field as the OwnTracks Android and iOS apps send them
/// (``OwnTracksPayloads``), through a real mosquitto into the subscriber.
@Suite("OwnTracks apps through a real broker")
struct OwnTracksCompatibilityTests {
    static let circles = OwnTracksPayloads.circles

    private func start() async throws -> Rig {
        try await Rig.start(file: try CirclesFile.parse(yaml: Self.circles))
    }

    private func publish(_ rig: Rig, _ topic: String, _ text: String, retain: Bool = false) async throws {
        try await rig.publisher.publish(to: topic, payload: Data(text.utf8), qos: .atLeastOnce, retain: retain)
    }

    /// Publishes a marker fix for `eve` and waits until the view shows it: everything published
    /// before it on this connection has been handled (one publisher, QoS 1: delivered in order).
    private func sync(_ rig: Rig, tst: Int) async throws {
        try await publish(rig, "owntracks/eve/iphone", #"{"_type":"location","lat":52.6,"lon":-8.6,"tid":"ev","tst":\#(tst)}"#)
        _ = try await rig.probe.member("friends", "eve", "iphone") { $0.fix?.tst == tst }
    }

    @Test("An Android app member with an upper-case user name turns online with an event, its regions and battery")
    func androidMemberOnline() async throws {
        let rig = try await start()
        let tst = Int(Date().timeIntervalSince1970) - 2
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: tst), retain: true)
        let dave = try await rig.probe.member("friends", "Dave", "handheld") { $0.status == .online }
        #expect(dave.fix?.tst == tst)
        #expect(dave.fix?.batt == 91)
        #expect(dave.inregions == ["Home"])
        _ = try await rig.probe.wait("Dave's online event") { snapshot in
            snapshot.events.first { $0.user == "Dave" && $0.event == .online }
        }
        let statistics = await rig.subscriber.store.statistics()
        #expect(statistics.backlog == 0)
        #expect(statistics.rejected.isEmpty)
        #expect(statistics.droppedFields.isEmpty, "every Android field is in range")
        await rig.stop()
    }

    @Test("An iOS quiet-mode manual report and numbers sent as strings are accepted; bad informational fields are dropped and counted")
    func quietModeAndStrings() async throws {
        let rig = try await start()
        let now = Int(Date().timeIntervalSince1970)
        try await publish(rig, "owntracks/eve/iphone", OwnTracksPayloads.iosQuietManualReport(tst: now - 1))
        let eve = try await rig.probe.member("friends", "eve", "iphone") { $0.status == .online }
        #expect(eve.fix?.tst == now - 1)
        #expect(eve.fix?.t == "u")
        #expect(eve.fix?.cog == nil && eve.fix?.vel == nil, "course and speed -1 mean unknown")
        #expect(eve.fix?.batt == 64)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.numericStrings(tst: now))
        let dave = try await rig.probe.member("friends", "Dave", "handheld") { $0.fix?.tst == now }
        #expect(dave.fix?.acc == 10 && dave.fix?.batt == 77 && dave.fix?.lat == 52.6651)
        let statistics = await rig.subscriber.store.statistics()
        #expect(statistics.droppedFields == ["cog": 1, "vel": 1])
        #expect(statistics.rejected.isEmpty)
        await rig.stop()
    }

    @Test("Sub-topics keep their OwnTracks meaning: a location on another sub-topic never becomes the live position")
    func subtopics() async throws {
        let rig = try await start()
        let now = Int(Date().timeIntervalSince1970)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: now - 5))
        try await publish(rig, "owntracks/Dave/handheld/extra", OwnTracksPayloads.androidLocation(tst: now - 1, lat: 53.0, lon: -9.0))
        try await publish(rig, "owntracks/Dave/handheld/event", OwnTracksPayloads.androidTransition(event: "enter", region: "Office", tst: now - 2))
        try await sync(rig, tst: now)
        let dave = try await rig.probe.member("friends", "Dave", "handheld") { $0.fix != nil }
        #expect(dave.fix?.tst == now - 5)
        #expect(dave.trail.map(\.tst) == [now - 5])
        #expect(await rig.subscriber.store.statistics().rejected == ["wrong_topic.location": 1])
        // The transition: an event to the circle, and the region in the member's view.
        let enter = try await rig.probe.wait("Dave's enter event") { snapshot in
            snapshot.events.first { $0.user == "Dave" && $0.event == .enter }
        }
        #expect(enter.region == "Office" && enter.tst == now - 2)
        let inside = try await rig.probe.member("friends", "Dave", "handheld") { $0.inregions?.contains("Office") == true }
        #expect(inside.inregions == ["Home", "Office"])
        try await publish(rig, "owntracks/Dave/handheld/event", OwnTracksPayloads.androidTransition(event: "leave", region: "Home", tst: now))
        _ = try await rig.probe.member("friends", "Dave", "handheld") { $0.inregions == ["Office"] }
        await rig.stop()
    }

    @Test("A card on <base>/info puts the name and the face's tag in the view; the face itself is kept once")
    func card() async throws {
        let rig = try await start()
        // A face over the 16 KiB payload limit of other topics: the PNG padded with a trailing chunk.
        let face = OwnTracksPayloads.png + [UInt8](repeating: 0x41, count: 100 * 1024)
        try await publish(rig, "owntracks/Dave/handheld/info", OwnTracksPayloads.card(name: "Dave D.", face: face), retain: true)
        let expectedTag = try #require(MemberFace(data: face)).tag
        let dave = try await rig.probe.member("friends", "Dave", "handheld") { $0.face != nil }
        #expect(dave.cardName == "Dave D.")
        #expect(dave.face == expectedTag)
        #expect(await rig.subscriber.store.face(circle: "friends", user: "Dave", device: "handheld")?.data == face)
        let view = try await rig.probe.wait("the view message") { $0.messages.last { $0.topic.hasSuffix("/view") } }
        #expect(view.payload.count < 4096, "the face is never inlined in views")
        await rig.stop()
    }

    @Test("Encrypted payloads, waypoints, beacons and status reports are counted per type; the device stays unknown")
    func ignoredTypes() async throws {
        let rig = try await start()
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.encrypted, retain: true)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.encrypted)
        try await publish(rig, "owntracks/Dave/handheld/waypoints", OwnTracksPayloads.waypoints)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.beacon)
        try await publish(rig, "owntracks/Dave/handheld/status", OwnTracksPayloads.status)
        try await publish(rig, "owntracks/Dave/handheld/cmd", #"{"_type":"cmd","action":"reportLocation"}"#)
        try await sync(rig, tst: Int(Date().timeIntervalSince1970))
        let statistics = await rig.subscriber.store.statistics()
        #expect(statistics.ignoredByType == ["encrypted": 2, "waypoints": 1, "beacon": 1, "status": 1, "cmd": 1])
        let dave = try await rig.probe.member("friends", "Dave", "handheld") { _ in true }
        #expect(dave.status == .unknown)
        let metrics = String(decoding: await rig.subscriber.store.renderMetrics(), as: UTF8.self)
        #expect(metrics.contains(#"whereabouts_sub_ingest_total{outcome="ignored",reason="encrypted"} 2"#))
        await rig.stop()
    }

    @Test("The apps' last will turns the member offline, and its next fix online again")
    func lastWill() async throws {
        let rig = try await start()
        let now = Int(Date().timeIntervalSince1970)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: now - 1), retain: true)
        _ = try await rig.probe.member("friends", "Dave", "handheld") { $0.status == .online }
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.lastWill(connectedAt: now - 600))
        _ = try await rig.probe.member("friends", "Dave", "handheld") { $0.status == .offline }
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: now + 1), retain: true)
        _ = try await rig.probe.member("friends", "Dave", "handheld") { $0.status == .online && $0.fix?.tst == now + 1 }
        await rig.stop()
    }

    @Test("A fix dated 290 s ahead (inside the tolerance) never holds the live position hostage")
    func clockSkewedFix() async throws {
        let rig = try await start()
        let now = Int(Date().timeIntervalSince1970)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: now + 290, lat: 52.70), retain: true)
        _ = try await rig.probe.member("friends", "Dave", "handheld") { $0.fix?.tst == now + 290 }
        // Real fixes from a correct clock, dated after the skewed one arrived.
        let observed = Int(Date().timeIntervalSince1970)
        try await waitUntil("the next second") { Int(Date().timeIntervalSince1970) > observed }
        let next = Int(Date().timeIntervalSince1970)
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: next, lat: 52.66), retain: true)
        let dave = try await rig.probe.member("friends", "Dave", "handheld") { $0.fix?.tst == next }
        #expect(dave.fix?.lat == 52.66)
        #expect(!dave.trail.contains { $0.tst == now + 290 }, "the skewed point leaves the trail")
        try await publish(rig, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: next + 1, lat: 52.67), retain: true)
        _ = try await rig.probe.member("friends", "Dave", "handheld") { $0.fix?.tst == next + 1 }
        await rig.stop()
    }
}
