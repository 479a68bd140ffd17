import Foundation
import Logging
import Testing
import WhereaboutsTestSupport
import WhereaboutsCore
import WhereaboutsMQTT
@testable import Subscriber

/// The ingest rules of issue 10 on the store alone (no I/O): live vs backlog, dropped fields,
/// ignored types, sub-topics, transitions, cards, clock skew and restored statuses.
@Suite("Ingest rules")
struct IngestRulesTests {
    static let t0 = Build.t0
    static let dave = MemberID(user: "Dave", device: "handheld")

    static func store(logger: Logger = Build.quietLogger, liveWindow: Double = 60) throws -> CircleViewStore {
        CircleViewStore(
            circles: try CirclesFile.parse(yaml: OwnTracksPayloads.circles),
            settings: ViewSettings(liveWindow: liveWindow), viewInterval: 0, logger: logger, now: Build.date(t0 - 10))
    }

    static func ingest(_ store: CircleViewStore, _ topic: String, _ text: String, retained: Bool = false, at now: Int) async {
        _ = await store.ingest(
            MQTTMessage(topic: topic, payload: Data(text.utf8), retained: retained),
            router: TopicRouter(), decoder: MessageDecoder(settings: store.settings), at: Build.date(now))
    }

    static func dave(_ store: CircleViewStore, at now: Int) async throws -> MemberView {
        try #require(await store.view(id: "friends", at: Build.date(now))?.member(user: "Dave", device: "handheld"))
    }

    @Test("An app fix with created_at after tst is live: the member turns online with an event")
    func createdAtIsNotBacklog() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), at: Self.t0 + 4)
        #expect(try await Self.dave(store, at: Self.t0 + 4).status == .online)
        #expect(await store.collectDue(at: Build.date(Self.t0 + 4)).events.map(\.event) == [.online])
        #expect(await store.statistics().backlog == 0)
    }

    @Test("Fixes older than the live window on arrival, or older than the live fix, are backlog")
    func backlogByAgeAndOrder() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), at: Self.t0 + 61)
        #expect(try await Self.dave(store, at: Self.t0 + 61).status == .unknown)
        #expect(try await Self.dave(store, at: Self.t0 + 61).fix?.tst == Self.t0, "backlog still becomes the newest fix")
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0 + 70), at: Self.t0 + 72)
        #expect(try await Self.dave(store, at: Self.t0 + 72).status == .online)
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0 + 65), at: Self.t0 + 73)
        let dave = try await Self.dave(store, at: Self.t0 + 73)
        #expect(dave.fix?.tst == Self.t0 + 70)
        #expect(dave.trail.map(\.tst) == [Self.t0, Self.t0 + 65, Self.t0 + 70])
        let statistics = await store.statistics()
        #expect(statistics.backlog == 2 && statistics.olderFixes == 1)
    }

    @Test("A fix dated ahead of its arrival is overtaken by the next real fix; its point leaves the trail")
    func clockSkew() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0 + 290), at: Self.t0)
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0 + 10, lat: 52.7), at: Self.t0 + 11)
        let dave = try await Self.dave(store, at: Self.t0 + 11)
        #expect(dave.fix?.tst == Self.t0 + 10 && dave.fix?.lat == 52.7)
        #expect(dave.trail.map(\.tst) == [Self.t0 + 10])
        #expect(dave.status == .online)
    }

    @Test("A retained presence dated in the future does not outrank a later last will")
    func futureRetainedPresence() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld/presence", #"{"_type":"presence","state":"online","tst":\#(Self.t0 + 250)}"#,
                          retained: true, at: Self.t0)
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.lastWill(connectedAt: Self.t0 - 100), at: Self.t0 + 5)
        #expect(try await Self.dave(store, at: Self.t0 + 5).status == .offline)
    }

    @Test("Out-of-range informational fields are dropped, counted by key, and logged once per member and key")
    func droppedFields() async throws {
        let (logger, records) = Logger.capturing()
        let store = try Self.store(logger: logger)
        for offset in 0..<3 {
            let payload = #"{"_type":"location","lat":52.1,"lon":-8.6,"tst":\#(Self.t0 + offset),"m":-7,"bs":9,"batt":"full","conn":"w"}"#
            await Self.ingest(store, "owntracks/Dave/handheld", payload, at: Self.t0 + offset)
        }
        let dave = try await Self.dave(store, at: Self.t0 + 2)
        #expect(dave.fix?.tst == Self.t0 + 2 && dave.fix?.batt == nil)
        #expect(await store.statistics().droppedFields == ["m": 3, "bs": 3, "batt": 3])
        let logged = records.entries.filter { "\($0.message)".hasPrefix("Dropped an informational field") }
        #expect(logged.count == 3)
        #expect(!records.entries.contains { "\($0.metadata)".contains("52.1") }, "coordinates are never logged")
    }

    @Test("Ignored types are counted per type and logged once per member and type; made-up types count as other")
    func ignoredTypes() async throws {
        let (logger, records) = Logger.capturing()
        let store = try Self.store(logger: logger)
        for _ in 0..<3 { await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.encrypted, at: Self.t0) }
        await Self.ingest(store, "owntracks/eve/iphone", OwnTracksPayloads.encrypted, at: Self.t0)
        await Self.ingest(store, "owntracks/eve/iphone", #"{"_type":"x-\#(UUID().uuidString.prefix(8))"}"#, at: Self.t0)
        #expect(await store.statistics().ignoredByType == ["encrypted": 4, "other": 1])
        let logged = records.entries.filter { "\($0.message)".hasPrefix("Ignored a message type") }
        #expect(logged.count == 3, "Dave/encrypted, eve/encrypted, eve/other")
    }

    @Test("A location or last will on a sub-topic, and a card outside /info, are rejected with wrong_topic")
    func wrongTopics() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld/extra", OwnTracksPayloads.androidLocation(tst: Self.t0), at: Self.t0)
        await Self.ingest(store, "owntracks/Dave/handheld/status", OwnTracksPayloads.lastWill(connectedAt: Self.t0), at: Self.t0)
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.card(name: "D", face: []), at: Self.t0)
        #expect(await store.statistics().rejected == ["wrong_topic.location": 1, "wrong_topic.lwt": 1, "wrong_topic.card": 1])
        #expect(try await Self.dave(store, at: Self.t0).status == .unknown)
    }

    @Test("A card face over 256 KiB, or not an image, is dropped and counted; the name is kept")
    func cardLimits() async throws {
        let store = try Self.store()
        let big = OwnTracksPayloads.png + [UInt8](repeating: 0, count: MessageDecoder.maxFaceBytes)
        await Self.ingest(store, "owntracks/Dave/handheld/info", OwnTracksPayloads.card(name: "Big", face: big), at: Self.t0)
        #expect(try await Self.dave(store, at: Self.t0).cardName == "Big")
        #expect(try await Self.dave(store, at: Self.t0).face == nil)
        await Self.ingest(store, "owntracks/Dave/handheld/info", OwnTracksPayloads.card(name: "Text", face: Array("hello".utf8)), at: Self.t0)
        #expect(await store.statistics().droppedFields == ["face": 2])
        let huge = String(repeating: "A", count: MessageDecoder.maxEncryptedCardPayloadBytes + 1)
        await Self.ingest(store, "owntracks/Dave/handheld/info", #"{"_type":"card","face":"\#(huge)"}"#, at: Self.t0)
        #expect(await store.statistics().rejected == ["oversize": 1])
    }

    @Test("Transitions send enter/leave events with the region and keep inregions as last reported")
    func transitions() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld/event", OwnTracksPayloads.androidTransition(event: "enter", region: "Gym", tst: Self.t0), at: Self.t0)
        await Self.ingest(store, "owntracks/Dave/handheld/event", OwnTracksPayloads.androidTransition(event: "leave", region: "Gym", tst: Self.t0 - 50), retained: true, at: Self.t0 + 1)
        #expect(try await Self.dave(store, at: Self.t0 + 1).inregions == ["Gym"], "an older transition changes nothing")
        let events = await store.collectDue(at: Build.date(Self.t0 + 1)).events
        #expect(events == [CircleEvent(circle: "friends", user: "Dave", device: "handheld", event: .enter, tst: Self.t0, region: "Gym")])
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0 + 5), at: Self.t0 + 6)
        #expect(try await Self.dave(store, at: Self.t0 + 6).inregions == ["Home"], "a newer fix's inregions wins")
    }

    @Test("A restored offline status survives the retained fix that the broker replays after a restart")
    func restoredStatus() async throws {
        let first = try Self.store()
        await Self.ingest(first, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), retained: false, at: Self.t0 + 1)
        await Self.ingest(first, "owntracks/Dave/handheld", OwnTracksPayloads.lastWill(connectedAt: Self.t0 - 900), at: Self.t0 + 30)
        let saved = try #require(await first.takeStatusSnapshot())
        #expect(saved.map(\.status) == [.offline])
        #expect(await first.takeStatusSnapshot() == nil, "nothing changed since")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = StatusFile(path: directory.appendingPathComponent("sub.status.json").path)
        try file.save(saved)
        #expect(try file.load() == saved)

        let second = try Self.store()
        #expect(await second.restoreStatus(try file.load(), at: Build.date(Self.t0 + 60)) == 1)
        await Self.ingest(second, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), retained: true, at: Self.t0 + 61)
        #expect(try await Self.dave(second, at: Self.t0 + 61).status == .offline)
        #expect(await second.collectDue(at: Build.date(Self.t0 + 61)).events.isEmpty, "no event for a restored status")
    }

    @Test("A damaged status file is reported with its path, not silently ignored")
    func damagedStatusFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString).json").path
        try "{\"version\":1,\"members\":[{\"user\":".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try StatusFile(path: path).load()
        } throws: { error in
            "\(error)".contains(path)
        }
    }

    @Test("An unwritable status file is a clear error naming the file")
    func unwritableStatusFile() {
        let path = "/nonexistent-\(UUID().uuidString)/sub.status.json"
        #expect {
            try StatusFile(path: path).save([])
        } throws: { error in
            guard case .unwritable(let named, _) = error as? StatusFileError else { return false }
            return named == path && "\(error)".contains("--state-file")
        }
    }

    @Test("Upper-case user and device names are allowed in the circles file and matched exactly")
    func upperCase() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), at: Self.t0)
        #expect(await store.statistics().rejected == ["unknown_topic": 1])
        #expect(throws: CirclesFileError.self) {
            try CirclesFile.parse(yaml: "circles:\n  - id: a\n    members:\n      - user: Da ve\n        device: x\n")
        }
    }

    @Test("Metrics show ingest by outcome and reason, dropped fields and members by status")
    func metrics() async throws {
        let store = try Self.store()
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), at: Self.t0 + 1)
        await Self.ingest(store, "owntracks/Dave/handheld", OwnTracksPayloads.androidLocation(tst: Self.t0), at: Self.t0 + 1)
        await Self.ingest(store, "owntracks/Dave/handheld", "garbage", at: Self.t0 + 1)
        await Self.ingest(store, "owntracks/eve/iphone", OwnTracksPayloads.iosQuietManualReport(tst: Self.t0 - 600), at: Self.t0 + 1)
        let text = String(decoding: await store.renderMetrics(at: Build.date(Self.t0 + 2)), as: UTF8.self)
        for line in [
            #"whereabouts_sub_ingest_total{outcome="live",reason="location"} 1"#,
            #"whereabouts_sub_ingest_total{outcome="duplicate",reason="location"} 1"#,
            #"whereabouts_sub_ingest_total{outcome="rejected",reason="malformed_json"} 1"#,
            #"whereabouts_sub_ingest_total{outcome="backlog",reason="location"} 1"#,
            #"whereabouts_sub_fields_dropped_total{field="cog"} 1"#,
            #"whereabouts_sub_members{status="online"} 1"#,
            #"whereabouts_sub_members{status="unknown"} 1"#,
            #"whereabouts_sub_websocket_clients 0"#,
        ] {
            #expect(text.contains(line), "missing \(line) in\n\(text)")
        }
    }
}
