import Subscriber
import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The subscriber against a real mosquitto: each test starts its own broker on a free port.
@Suite("Subscriber with a real broker")
struct SubscriberIntegrationTests {
    let file: CirclesFile

    init() throws {
        file = try CirclesFile.load(path: TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path)
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    @Test("Views of three overlapping circles converge to the replayed tracks' last positions")
    func converge() async throws {
        let rig = try await Rig.start(file: file)
        let (subscriber, probe, publisher) = (rig.subscriber, rig.probe, rig.publisher)
        var last: [MemberID: LocationMessage] = [:]
        let end = Self.now
        for member in file.memberIDs {
            let messages = try ReplayedTracks.messages(for: member, endingAt: end)
            try await ReplayedTracks.publish(messages, as: member, with: publisher)
            last[member] = messages.last
        }
        for circle in file.circles {
            for member in circle.members {
                let expected = try #require(last[member.id])
                let view = try await probe.member(circle.id, member.user, member.device) { $0.fix?.tst == expected.tst }
                #expect(view.fix?.lat == expected.lat)
                #expect(view.fix?.lon == expected.lon)
                #expect(view.status == .online)
                #expect(view.name == member.name)
                #expect(view.trail.last == TrailPoint(tst: expected.tst, lat: expected.lat, lon: expected.lon))
            }
        }
        #expect(await subscriber.store.statistics().rejected.total == 0)
        await rig.stop()
    }

    @Test("Out-of-order and duplicate fixes never move a live position backwards")
    func neverBackwards() async throws {
        let rig = try await Rig.start(file: file)
        let (subscriber, probe, publisher) = (rig.subscriber, rig.probe, rig.publisher)
        let alice = MemberID(user: "alice", device: "phone")
        let t = Self.now - 100
        let sequence = [(t + 50, 52.05), (t + 10, 52.01), (t + 50, 52.99), (t + 30, 52.03), (t + 10, 52.98), (t + 60, 52.06)]
        try await ReplayedTracks.publish(
            sequence.map { LocationMessage(tid: "al", tst: $0.0, lat: $0.1, lon: -8.6, acc: 5) }, as: alice, with: publisher)
        let final = try await probe.member("family", "alice", "phone") { $0.fix?.tst == t + 60 }
        #expect(final.fix?.lat == 52.06)
        #expect(final.trail.map(\.tst) == [t + 10, t + 30, t + 50, t + 60])
        #expect(final.trail.map(\.lat) == [52.01, 52.03, 52.05, 52.06])
        // Every view the probe saw showed a non-decreasing live fix.
        let seen = await probe.messages.compactMap { message -> Int? in
            guard message.topic == "whereabouts/circles/family/view",
                  let view = try? JSONDecoder().decode(CircleView.self, from: message.payload) else { return nil }
            return view.member(user: "alice", device: "phone")?.fix?.tst
        }
        #expect(seen == seen.sorted())
        #expect(!seen.contains(t + 10) && !seen.contains(t + 30))
        let stats = await subscriber.store.statistics()
        #expect(stats.duplicates == 2)
        await rig.stop()
    }

    @Test("A last will sent by the broker turns a member offline")
    func lastWill() async throws {
        let rig = try await Rig.start(file: file)
        let (broker, probe, publisher) = (rig.broker, rig.probe, rig.publisher)
        try await ReplayedTracks.publish(
            [LocationMessage(tid: "ca", tst: Self.now, lat: 52.6, lon: -8.6, acc: 5)],
            as: MemberID(user: "carol", device: "car"), with: publisher)
        _ = try await probe.member("family", "carol", "car") { $0.status == .online }
        // A device connection with OwnTracks' will, killed without DISCONNECT: the broker sends the will.
        let device = try ChildProcess.spawn(
            "/usr/bin/mosquitto_sub",
            ["-h", broker.host, "-p", "\(broker.port)", "-i", "carol-car", "-t", "owntracks/carol/car/cmd",
             "--will-topic", "owntracks/carol/car", "--will-qos", "1",
             "--will-payload", #"{"_type":"lwt","tst":\#(Self.now)}"#])
        try await waitUntil("the device connection", timeout: .seconds(10)) {
            (try? String(contentsOf: broker.logFile, encoding: .utf8))?.contains("as carol-car") ?? false
        }
        kill(device.pid, SIGKILL)
        _ = try await withTimeout(.seconds(10), "mosquitto_sub to end after SIGKILL") { await device.waitForExit() }
        let offline = try await probe.member("family", "carol", "car") { $0.status == .offline }
        #expect(offline.fix?.lat == 52.6)
        let event = try await probe.wait("an offline event") { probe in
            probe.events.first { $0.event == .offline && $0.user == "carol" }
        }
        #expect(event.circle == "family")
        await rig.stop()
    }

    @Test("A member turns stale after the timeout")
    func stale() async throws {
        let rig = try await Rig.start(file: file, settings: ViewSettings(staleTimeout: 1))
        let (probe, publisher) = (rig.probe, rig.publisher)
        try await ReplayedTracks.publish(
            [LocationMessage(tid: "da", tst: Self.now, lat: 52.6, lon: -8.6, acc: 5)],
            as: MemberID(user: "dave", device: "handheld"), with: publisher)
        let events = try await probe.wait("stale events for dave in both circles") { probe in
            let stale = probe.events.filter { $0.event == .stale && $0.user == "dave" }
            return stale.count == 2 ? stale : nil
        }
        #expect(Set(events.map(\.circle)) == ["field-team", "carpool"])
        let view = try await probe.member("carpool", "dave", "handheld") { $0.status == .stale }
        #expect(view.fix?.lat == 52.6)
        await rig.stop()
    }

    @Test("A restarted subscriber loses nothing and rebuilds its views from retained messages")
    func restart() async throws {
        let broker = try await Broker.start()
        let publisher = try await MQTTClient.connected(to: broker)
        let bob = MemberID(user: "bob", device: "phone")
        let t = Self.now - 100
        // Retained before any subscriber existed.
        try await ReplayedTracks.publish([LocationMessage(tid: "ca", tst: t, lat: 52.1, lon: -8.1, acc: 5)],
                                         as: MemberID(user: "carol", device: "car"), with: publisher)
        var subscriber = try await RunningSubscriber.start(broker: broker, file: file, clientID: "sub-restart")
        let probe = try await ViewProbe.start(broker: broker)
        try await ReplayedTracks.publish([LocationMessage(tid: "bo", tst: t + 1, lat: 52.2, lon: -8.2, acc: 5)], as: bob, with: publisher)
        _ = try await probe.member("family", "bob", "phone") { $0.fix?.tst == t + 1 }
        await subscriber.stop()
        // While the subscriber is away: not retained, so only the persistent session can deliver them.
        try await ReplayedTracks.publish(
            (2...4).map { LocationMessage(tid: "bo", tst: t + $0, lat: 52.2 + Double($0) / 100, lon: -8.2, acc: 5) },
            as: bob, with: publisher, retain: false)
        subscriber = try await RunningSubscriber.start(broker: broker, file: file, clientID: "sub-restart")
        // The session's queue (t+2...t+4) is ingested as soon as the subscriber connects; the
        // retained t+1 comes with the re-subscription, so a first view may lack it: wait for both.
        let rebuilt = try await probe.member("field-team", "bob", "phone") { $0.fix?.tst == t + 4 && $0.trail.count == 4 }
        #expect(rebuilt.trail.map(\.tst) == [t + 1, t + 2, t + 3, t + 4])
        let view = try #require(await subscriber.store.view(id: "family"))
        #expect(view.member(user: "carol", device: "car")?.fix?.lat == 52.1)
        #expect(view.member(user: "bob", device: "phone")?.fix?.lat == 52.24)
        await publisher.disconnect()
        await probe.stop()
        await subscriber.stop()
        await broker.stop()
    }

    @Test("1,000 malformed messages are all rejected and counted, and the subscriber stays healthy")
    func malformed() async throws {
        let settings = ViewSettings(maxPayloadBytes: 8 * 1024)
        let rig = try await Rig.start(file: file, settings: settings)
        let (subscriber, probe, publisher) = (rig.subscriber, rig.probe, rig.publisher)
        let now = Self.now
        let bad: [String] = [
            "garbage", "{", #"{"_type":"location","lat":NaN,"lon":1,"tst":\#(now)}"#,
            #"{"_type":"location","lat":"north","lon":1,"tst":\#(now)}"#, #"{"_type":"location","lat":91,"lon":1,"tst":\#(now)}"#,
            #"{"_type":"location","lat":1,"lon":1,"tst":0}"#, #"{"_type":"location","lat":1,"lon":1,"tst":\#(now + 86_400)}"#,
            #"{"_type":5}"#, "[]", String(repeating: "x", count: 20_000),
        ]
        let topics = ["owntracks/alice/phone", "owntracks/bob/phone/presence", "owntracks/carol/car", "owntracks/dave/handheld"]
        for i in 0..<1000 {
            try await publisher.publish(to: topics[i % topics.count], payload: Data(bad[i % bad.count].utf8), qos: .atLeastOnce, retain: false)
        }
        try await ReplayedTracks.publish([LocationMessage(tid: "al", tst: now, lat: 52.7, lon: -8.7, acc: 5)],
                                         as: MemberID(user: "alice", device: "phone"), with: publisher)
        let alice = try await probe.member("carpool", "alice", "phone") { $0.fix?.tst == now }
        #expect(alice.fix?.lat == 52.7)
        let stats = await subscriber.store.statistics()
        #expect(stats.rejected.total == 1000)
        #expect(stats.rejected["oversize"] == 100)
        #expect(stats.rejected["malformed_json"] == 400)
        #expect(stats.accepted == 1)
        await rig.stop()
    }

    @Test("Editing the circles file adds a member without losing the others' state")
    func reload() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("circles.yaml").path
        try String(contentsOfFile: TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path, encoding: .utf8)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let subscriber = try await RunningSubscriber.start(broker: broker, file: try CirclesFile.load(path: path), circlesPath: path)
        let probe = try await ViewProbe.start(broker: broker)
        let publisher = try await MQTTClient.connected(to: broker)
        let now = Self.now
        try await ReplayedTracks.publish([LocationMessage(tid: "al", tst: now - 5, lat: 52.5, lon: -8.5, acc: 5)],
                                         as: MemberID(user: "alice", device: "phone"), with: publisher)
        _ = try await probe.member("family", "alice", "phone") { $0.fix != nil }
        let edited = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
            of: "  - id: field-team", with: "      - {user: erin, device: tablet, name: Erin}\n\n  - id: field-team")
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        _ = try await probe.wait("erin joined") { $0.events.first { $0.event == .joined && $0.user == "erin" } }
        try await ReplayedTracks.publish([LocationMessage(tid: "er", tst: now, lat: 52.4, lon: -8.4, acc: 5)],
                                         as: MemberID(user: "erin", device: "tablet"), with: publisher)
        let erin = try await probe.member("family", "erin", "tablet") { $0.fix != nil }
        #expect(erin.fix?.lat == 52.4)
        let alice = try #require(await subscriber.store.view(id: "family")?.member(user: "alice", device: "phone"))
        #expect(alice.fix?.lat == 52.5)
        await publisher.disconnect()
        await probe.stop()
        await subscriber.stop()
        await broker.stop()
    }
}
