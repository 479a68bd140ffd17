import Foundation
import Testing
import WhereaboutsCore
@testable import Subscriber

/// Honest presence: what a device's promise (`due`) makes of its status, on the real store with
/// the clock passed in: online, stationary, overdue, offline, gone, and stale for devices that
/// promise nothing.
@Suite("Presence status")
struct PresenceStatusTests {
    static let t0 = Build.t0

    static func fix(_ tst: Int, due: Int?) -> InboundMessage {
        .location(LocationMessage(tid: "al", tst: tst, lat: 52.0, lon: -8.6, acc: 5, due: due), inregions: nil)
    }

    static func heartbeat(_ tst: Int, due: Int) -> InboundMessage {
        .presence(online: true, since: t0 - 100, tst: tst, due: due)
    }

    /// Collects at each time in `times` and returns the status events for Alice in `family`.
    static func events(_ store: CircleViewStore, at times: [Int]) async -> [CircleEvent.Kind] {
        var kinds: [CircleEvent.Kind] = []
        for time in times {
            let batch = await store.collectDue(at: Build.date(time))
            kinds += batch.events.filter { $0.circle == "family" && $0.user == "alice" }.map(\.event)
        }
        return kinds
    }

    static func status(_ store: CircleViewStore, at time: Int) async -> MemberView? {
        await store.view(id: "family", at: Build.date(time))?.member(user: "alice", device: "phone")
    }

    @Test("A device that promises: online while fixes come, stationary on heartbeats alone, overdue when a promise is broken, online with the next fix")
    func promisingDevice() async throws {
        let store = try Build.store()
        await store.apply(Self.fix(Self.t0, due: Self.t0 + 900), from: Build.alice, retained: false, at: Build.date(Self.t0))
        var events = await Self.events(store, at: [Self.t0])
        #expect(events == [.online])
        #expect(await Self.status(store, at: Self.t0 + 300)?.status == .online)
        #expect(await Self.status(store, at: Self.t0 + 300)?.due == Self.t0 + 900)
        // No fix for the stale timeout: stationary (the promise still holds), seen by the clock.
        let batch = await store.collectDue(at: Build.date(Self.t0 + 1))
        #expect(batch.nextDeadline == Build.date(Self.t0 + 300))
        events = await Self.events(store, at: [Self.t0 + 301])
        #expect(events == [.stationary])
        let stationary = await Self.status(store, at: Self.t0 + 400)
        #expect(stationary?.status == .stationary)
        #expect(stationary?.statusSince == Self.t0 + 300)
        // The heartbeat keeps the promise: still stationary past the first due.
        await store.apply(Self.heartbeat(Self.t0 + 900, due: Self.t0 + 1_800), from: Build.alice, retained: false, at: Build.date(Self.t0 + 900))
        events = await Self.events(store, at: [Self.t0 + 900, Self.t0 + 1_100])
        #expect(events.isEmpty)
        #expect(await Self.status(store, at: Self.t0 + 1_100)?.status == .stationary)
        // The next heartbeat does not come: overdue once the grace (120 s) after the due has passed.
        #expect(await Self.status(store, at: Self.t0 + 1_920)?.status == .stationary)
        events = await Self.events(store, at: [Self.t0 + 1_921])
        #expect(events == [.overdue])
        let overdue = await Self.status(store, at: Self.t0 + 1_950)
        #expect(overdue?.status == .overdue)
        #expect(overdue?.statusSince == Self.t0 + 1_920)
        // A fix: online again, since now.
        await store.apply(Self.fix(Self.t0 + 2_000, due: Self.t0 + 2_900), from: Build.alice, retained: false, at: Build.date(Self.t0 + 2_000))
        events = await Self.events(store, at: [Self.t0 + 2_000])
        #expect(events == [.online])
        #expect(await Self.status(store, at: Self.t0 + 2_001)?.statusSince == Self.t0 + 2_000)
    }

    @Test("A device that promises nothing (the OwnTracks apps) falls back to the stale timeout")
    func noPromise() async throws {
        let store = try Build.store()
        await store.apply(Self.fix(Self.t0, due: nil), from: Build.alice, retained: false, at: Build.date(Self.t0))
        #expect(await Self.status(store, at: Self.t0 + 300)?.status == .online)
        #expect(await Self.status(store, at: Self.t0 + 301)?.status == .stale)
        #expect(await Self.status(store, at: Self.t0 + 301)?.due == nil)
        let events = await Self.events(store, at: [Self.t0, Self.t0 + 301, Self.t0 + 5_000])
        #expect(events == [.online, .stale])
    }

    @Test("A last will is offline whatever was promised; after the gone timeout the member is gone and still listed")
    func offlineThenGone() async throws {
        let store = try Build.store()
        await store.apply(Self.fix(Self.t0, due: Self.t0 + 900), from: Build.alice, retained: false, at: Build.date(Self.t0))
        await store.apply(.lastWill(tst: Self.t0 - 50), from: Build.alice, retained: false, at: Build.date(Self.t0 + 10))
        var events = await Self.events(store, at: [Self.t0 + 10, Self.t0 + 2_000])
        #expect(events == [.online, .offline], "no overdue for a device that said it went offline")
        let gone = Self.t0 + 30 * 86_400
        #expect(await Self.status(store, at: gone)?.status == .offline)
        events = await Self.events(store, at: [gone + 1])
        #expect(events == [.gone])
        let member = try #require(await Self.status(store, at: gone + 2))
        #expect(member.status == .gone)
        #expect(member.fix != nil, "a gone member is still listed with its last fix")
        #expect(member.statusSince == gone)
    }

    @Test("A presence offline withdraws the promise; a presence online with a due makes one")
    func presencePromises() async throws {
        let store = try Build.store()
        await store.apply(Self.heartbeat(Self.t0, due: Self.t0 + 60), from: Build.alice, retained: false, at: Build.date(Self.t0))
        #expect(await Self.status(store, at: Self.t0 + 1)?.status == .online)
        #expect(await Self.status(store, at: Self.t0 + 181)?.status == .overdue)
        await store.apply(.presence(online: false, since: Self.t0 - 100, tst: Self.t0 + 200), from: Build.alice, retained: false, at: Build.date(Self.t0 + 200))
        let member = await Self.status(store, at: Self.t0 + 201)
        #expect(member?.status == .offline)
        #expect(member?.due == nil)
    }

    @Test("Replayed retained state is ordered by its own time: an old fix's promise does not outrank a newer heartbeat")
    func retainedOrder() async throws {
        let store = try Build.store()
        let now = Build.date(Self.t0)
        await store.apply(Self.heartbeat(Self.t0 - 100, due: Self.t0 + 800), from: Build.alice, retained: true, at: now)
        await store.apply(Self.fix(Self.t0 - 3_000, due: Self.t0 - 2_100), from: Build.alice, retained: true, at: now)
        let member = await Self.status(store, at: Self.t0 + 1)
        #expect(member?.due == Self.t0 + 800)
        #expect(member?.status == .stationary)
    }

    @Test("The promise survives a restart through the status file")
    func restored() async throws {
        let store = try Build.store()
        await store.apply(Self.fix(Self.t0, due: Self.t0 + 900), from: Build.alice, retained: false, at: Build.date(Self.t0))
        let records = await store.statusSnapshot()
        #expect(records.first { $0.user == "alice" }?.due == Self.t0 + 900)
        let restarted = try Build.store()
        await restarted.restoreStatus(records, at: Build.date(Self.t0 + 10))
        #expect(await Self.status(restarted, at: Self.t0 + 1_021)?.status == .overdue)
    }

    @Test("A due before the message's own time, absurdly far, or of the wrong type is dropped and counted; the fix is kept",
          arguments: [
            #"{"_type":"location","lat":52,"lon":-8.6,"tst":1700000000,"acc":5,"tid":"al","due":1699990000}"#,
            #"{"_type":"location","lat":52,"lon":-8.6,"tst":1700000000,"acc":5,"tid":"al","due":1800000000}"#,
            #"{"_type":"location","lat":52,"lon":-8.6,"tst":1700000000,"acc":5,"tid":"al","due":"soon"}"#,
            #"{"_type":"lwt","state":"online","since":1699990000,"tst":1700000000,"due":-1}"#,
          ])
    func badDue(payload: String) throws {
        let decoder = MessageDecoder(settings: ViewSettings())
        let decoded = try decoder.decodeReporting(Array(payload.utf8), now: Build.date(1_700_000_010))
        #expect(decoded.droppedFields == ["due"])
        switch decoded.message {
        case .location(let location, _): #expect(location.due == nil && location.lat == 52)
        case .presence(let online, _, _, let due): #expect(online && due == nil)
        default: Issue.record("unexpected \(decoded.message)")
        }
    }

    @Test("The publisher's heartbeat and location, as it encodes them, are read with their due")
    func publisherShapes() throws {
        let decoder = MessageDecoder(settings: ViewSettings())
        let now = Build.date(1_700_000_000)
        let heartbeat = try JSONEncoder().encode(PresenceMessage(state: .online, since: 1_699_999_000, tst: 1_700_000_000, due: 1_700_000_900))
        #expect(try decoder.decode(Array(heartbeat), now: now) == .presence(online: true, since: 1_699_999_000, tst: 1_700_000_000, due: 1_700_000_900))
        let location = try JSONEncoder().encode(LocationMessage(tid: "al", tst: 1_700_000_000, lat: 52, lon: -8.6, acc: 5, due: 1_700_000_900))
        guard case .location(let decoded, _) = try decoder.decode(Array(location), now: now) else {
            Issue.record("not a location")
            return
        }
        #expect(decoded.due == 1_700_000_900)
    }
}
