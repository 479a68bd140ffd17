import Foundation
import Logging
import Testing
import WhereaboutsTestSupport
import WhereaboutsCore
import WhereaboutsMQTT
@testable import Subscriber

@Suite("Circle view store")
struct CircleViewStoreTests {
    @Test("A fix shows in every circle the member belongs to")
    func overlappingCircles() async throws {
        let store = try Build.store()
        await store.apply(Build.fix(Build.t0, lat: 52.5), from: Build.bob, retained: false, at: Build.date(Build.t0))
        for id in ["family", "field-team"] {
            let view = try #require(await store.view(id: id, at: Build.date(Build.t0 + 1)))
            let bob = try #require(view.member(user: "bob", device: "phone"))
            #expect(bob.fix?.lat == 52.5)
            #expect(bob.status == .online)
            #expect(bob.age == 1)
        }
        let carpool = try #require(await store.view(id: "carpool", at: Build.date(Build.t0 + 1)))
        #expect(carpool.member(user: "bob", device: "phone") == nil)
    }

    @Test("Older and duplicate fixes never move the live position backwards")
    func neverBackwards() async throws {
        let store = try Build.store()
        let now = Build.date(Build.t0 + 100)
        #expect(await store.apply(Build.fix(Build.t0 + 50, lat: 52.05), from: Build.alice, retained: false, at: now) == .changed)
        #expect(await store.apply(Build.fix(Build.t0 + 10, lat: 52.01), from: Build.alice, retained: false, at: now) == .changed)
        #expect(await store.apply(Build.fix(Build.t0 + 50, lat: 52.99), from: Build.alice, retained: false, at: now) == .duplicate)
        #expect(await store.apply(Build.fix(Build.t0 + 10, lat: 52.98), from: Build.alice, retained: false, at: now) == .duplicate)
        #expect(await store.apply(Build.fix(Build.t0 + 30, lat: 52.03), from: Build.alice, retained: false, at: now) == .changed)
        let view = try #require(await store.view(id: "family", at: now))
        let alice = try #require(view.member(user: "alice", device: "phone"))
        #expect(alice.fix?.tst == Build.t0 + 50)
        #expect(alice.fix?.lat == 52.05)
        #expect(alice.trail.map(\.tst) == [Build.t0 + 10, Build.t0 + 30, Build.t0 + 50])
        let stats = await store.statistics()
        #expect(stats.duplicates == 2)
        #expect(stats.olderFixes == 2)
    }

    @Test("A last will turns a member offline and a later live fix brings it back")
    func lastWill() async throws {
        let store = try Build.store()
        await store.apply(Build.fix(Build.t0), from: Build.carol, retained: false, at: Build.date(Build.t0))
        await store.apply(.lastWill(tst: Build.t0 - 600), from: Build.carol, retained: false, at: Build.date(Build.t0 + 5))
        var carol = try #require(await store.view(id: "family", at: Build.date(Build.t0 + 6))?.member(user: "carol", device: "car"))
        #expect(carol.status == .offline)
        #expect(carol.statusSince == Build.t0 + 5)
        let batch = await store.collectDue(at: Build.date(Build.t0 + 6))
        #expect(batch.events.map(\.event) == [.online, .offline])
        await store.apply(Build.fix(Build.t0 + 60), from: Build.carol, retained: false, at: Build.date(Build.t0 + 60))
        carol = try #require(await store.view(id: "family", at: Build.date(Build.t0 + 61))?.member(user: "carol", device: "car"))
        #expect(carol.status == .online)
    }

    @Test("Retained state replayed in any order ends in the newest status")
    func retainedOrder() async throws {
        let store = try Build.store()
        let now = Build.date(Build.t0 + 10)
        await store.apply(.presence(online: false, since: nil, tst: Build.t0), from: Build.dave, retained: true, at: now)
        await store.apply(Build.fix(Build.t0 - 30), from: Build.dave, retained: true, at: now)
        let dave = try #require(await store.view(id: "carpool", at: now)?.member(user: "dave", device: "handheld"))
        #expect(dave.status == .offline)
        #expect(dave.fix?.tst == Build.t0 - 30)
    }

    @Test("A member turns stale after the timeout, with one event per circle")
    func stale() async throws {
        let store = try Build.store(staleTimeout: 30)
        await store.apply(Build.fix(Build.t0), from: Build.bob, retained: false, at: Build.date(Build.t0))
        let first = await store.collectDue(at: Build.date(Build.t0))
        #expect(first.events.map(\.event) == [.online, .online])
        #expect(first.nextDeadline == Build.date(Build.t0 + 30))
        #expect(await store.collectDue(at: Build.date(Build.t0 + 29)).events.isEmpty)
        let later = await store.collectDue(at: Build.date(Build.t0 + 31))
        #expect(later.events.map(\.event) == [.stale, .stale])
        #expect(Set(later.events.map(\.circle)) == ["family", "field-team"])
        #expect(later.views.count == 2)
        #expect(later.views.allSatisfy { $0.member(user: "bob", device: "phone")?.status == .stale })
    }

    @Test("Backlog fixes (older than the live window on arrival) go to the trail and do not announce the member online")
    func backlog() async throws {
        let store = try Build.store(staleTimeout: 60)
        let now = Build.date(Build.t0 + 3600)
        await store.apply(Build.fix(Build.t0, createdAt: Build.t0 + 3590), from: Build.alice, retained: false, at: now)
        let alice = try #require(await store.view(id: "family", at: now)?.member(user: "alice", device: "phone"))
        #expect(alice.status == .unknown)
        #expect(alice.trail.count == 1)
        #expect(await store.statistics().backlog == 1)
    }

    @Test("Views are collected at most once per interval and only when something changed", .timeLimit(.minutes(1)))
    func interval() async throws {
        let store = try Build.store(viewInterval: 1)
        let initial = await store.collectDue(at: Build.date(Build.t0))
        #expect(initial.views.count == 3)
        #expect(await store.collectDue(at: Build.date(Build.t0 + 5)).views.isEmpty)
        await store.apply(Build.fix(Build.t0 + 5), from: Build.dave, retained: false, at: Build.date(Build.t0 + 5))
        let due = await store.collectDue(at: Build.date(Build.t0 + 5))
        #expect(due.views.map(\.circle.id) == ["carpool", "field-team"])
        await store.apply(Build.fix(Build.t0 + 6), from: Build.dave, retained: false, at: Build.date(Double(Build.t0) + 5.5))
        let early = await store.collectDue(at: Build.date(Double(Build.t0) + 5.5))
        #expect(early.views.isEmpty)
        #expect(early.nextDeadline == Build.date(Build.t0 + 6))
        await store.apply(Build.fix(Build.t0 + 7), from: Build.alice, retained: false, at: Build.date(Double(Build.t0) + 5.6))
        await store.waitForChanges()  // carpool was collected 0.6 s ago: the publisher must still wake to reschedule
        #expect(await store.collectDue(at: Build.date(Build.t0 + 6)).views.map(\.circle.id) == ["carpool", "family", "field-team"])
    }

    @Test("The display position extrapolates with ve/vn for at most ms seconds")
    func display() async throws {
        let store = try Build.store()
        await store.apply(Build.fix(Build.t0, ve: 10, vn: 0, ms: 20), from: Build.alice, retained: false, at: Build.date(Build.t0))
        let at10 = try #require(await store.view(id: "family", at: Build.date(Build.t0 + 10))?.member(user: "alice", device: "phone"))
        let at100 = try #require(await store.view(id: "family", at: Build.date(Build.t0 + 100))?.member(user: "alice", device: "phone"))
        let message = try #require(at10.fix).locationMessage(tid: "al")
        let expected10 = message.displayedPosition(at: Build.date(Build.t0 + 10))
        #expect(at10.display == DisplayPosition(lat: expected10.latitude, lon: expected10.longitude, extrapolated: true))
        let start = Coordinate(latitude: 52, longitude: -8.6)
        let d100 = Geodesy.distance(start, Coordinate(latitude: at100.display!.lat, longitude: at100.display!.lon))
        #expect(abs(d100 - 200) < 0.5)
        #expect(at10.speed == 10)
        #expect(at10.course == 90)
    }

    @Test("The trail is bounded by count and span")
    func trailBounds() async throws {
        let store = CircleViewStore(
            circles: try Build.exampleFile(), settings: ViewSettings(trailLength: 5, trailDuration: 60),
            logger: Build.quietLogger, now: Build.date(Build.t0 - 10))
        for i in 0..<30 {
            await store.apply(Build.fix(Build.t0 + i * 10), from: Build.alice, retained: false, at: Build.date(Build.t0 + i * 10))
        }
        let trail = try #require(await store.trail(circle: "family", user: "alice", device: "phone"))
        #expect(trail.map(\.tst) == (25...29).map { Build.t0 + $0 * 10 })
        #expect(await store.trail(circle: "field-team", user: "alice", device: "phone") == nil)
    }

    @Test("A reload keeps state, sends joined and left, and reports subscription changes")
    func reload() async throws {
        let store = try Build.store()
        await store.apply(Build.fix(Build.t0), from: Build.bob, retained: false, at: Build.date(Build.t0))
        _ = await store.collectDue(at: Build.date(Build.t0))
        let file = try CirclesFile.parse(yaml: """
            circles:
              - id: family
                name: Family
                members:
                  - {user: bob, device: phone, name: Bob}
                  - {user: erin, device: tablet, name: Erin}
            """)
        let change = await store.replaceCircles(file, at: Build.date(Build.t0 + 1))
        #expect(change.added == [MemberID(user: "erin", device: "tablet")])
        #expect(change.removed == [Build.alice, Build.carol, Build.dave])
        let batch = await store.collectDue(at: Build.date(Build.t0 + 1))
        #expect(Set(batch.events.map { "\($0.event.rawValue):\($0.user)" }) == ["joined:erin", "left:alice", "left:carol"])
        #expect(batch.removedCircles.sorted() == ["carpool", "field-team"])
        let bob = try #require(batch.views.first?.member(user: "bob", device: "phone"))
        #expect(bob.fix?.tst == Build.t0)
    }

    @Test("Messages from devices outside the circles are rejected and counted")
    func notAMember() async throws {
        let store = try Build.store()
        let outcome = await store.apply(Build.fix(Build.t0), from: MemberID(user: "mallory", device: "x"), retained: false, at: Build.date(Build.t0))
        #expect(outcome == .notAMember)
        #expect(await store.statistics().rejected["unknown_topic"] == 1)
    }

    @Test("Dashboards receive collected views through updates()")
    func updates() async throws {
        let store = try Build.store()
        let updates = await store.updates()
        _ = await store.collectDue(at: Build.date(Build.t0))
        var iterator = updates.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.circle.id == "carpool")
    }

    @Test("waitForChanges returns when a change makes a view due")
    func waitForChanges() async throws {
        let store = try Build.store()
        _ = await store.collectDue(at: Date())
        async let waited: Void = store.waitForChanges()
        await store.apply(Build.fix(Int(Date().timeIntervalSince1970)), from: Build.bob, retained: false, at: Date().addingTimeInterval(2))
        await waited
        #expect(await store.collectDue(at: Date().addingTimeInterval(2)).views.count == 2)
    }
}

@Suite("Rejection logging")
struct RejectionLoggingTests {
    @Test("A rejected message is logged with its topic and reason, never its coordinates")
    func logged() async throws {
        let (logger, recorder) = Logger.capturing()
        let store = CircleViewStore(circles: try Build.exampleFile(), logger: logger)
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: ViewSettings())
        let payload = Data(#"{"_type":"location","lat":91.123456,"lon":8.654321,"tst":1700000000}"#.utf8)
        await ingestor.handle(MQTTMessage(topic: "owntracks/alice/phone", payload: payload, retained: false),
                              at: Build.date(Build.t0))
        let record = try #require(recorder.entries.first { "\($0.message)".hasPrefix("Rejected a message") })
        #expect(record.level == .info)
        #expect(record.metadata["whereabouts.reason"] == "out_of_range.lat")
        #expect(record.metadata["whereabouts.topic"] == "owntracks/alice/phone")
        #expect(!recorder.entries.contains { "\($0.message) \($0.metadata)".contains("91.12") || "\($0.metadata)".contains("8.65") })
        #expect(await store.statistics().rejected == ["out_of_range.lat": 1])
    }

    @Test("Rejected messages are all counted; the first of each reason is logged at info, the rest at debug")
    func rejectionLogLevels() async throws {
        let (logger, recorder) = Logger.capturing()
        let store = CircleViewStore(circles: try Build.exampleFile(), logger: logger)
        let ingestor = Ingestor(store: store, router: TopicRouter(), settings: ViewSettings())
        let outOfRange = Data(#"{"_type":"location","lat":91,"lon":8,"tst":1700000000}"#.utf8)
        for _ in 0..<5 {
            await ingestor.handle(MQTTMessage(topic: "owntracks/alice/phone", payload: outOfRange, retained: false), at: Build.date(Build.t0))
        }
        await ingestor.handle(MQTTMessage(topic: "owntracks/alice/phone", payload: Data("garbage".utf8), retained: false), at: Build.date(Build.t0))
        let rejections = recorder.entries.filter { "\($0.message)".hasPrefix("Rejected a message") }
        #expect(rejections.count == 6)
        #expect(rejections.filter { $0.level == .info }.map { "\($0.metadata["whereabouts.reason"] ?? "")" } == ["out_of_range.lat", "malformed_json"])
        #expect(rejections.filter { $0.level == .debug }.count == 4)
        #expect(await store.statistics().rejected == ["out_of_range.lat": 5, "malformed_json": 1])
    }
}
