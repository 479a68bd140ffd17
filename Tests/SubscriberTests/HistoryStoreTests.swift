import Foundation
import GRDB
import Logging
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// The history against a real SQLite file in a temporary folder: order, duplicates, retention,
/// the size cap, the ingest hand-over, and the errors a user sees.
@Suite("History store (real SQLite)")
struct HistoryStoreTests {
    static func open() throws -> HistoryStore {
        let directory = try TestPaths.makeTemporaryDirectory()
        return try HistoryStore(path: directory.appendingPathComponent("sub/history.sqlite").path, logger: Build.quietLogger)
    }

    static func row(_ member: MemberID, _ tst: Int, lat: Double = 52.0, received: Double = 0) -> HistoryRow {
        .location(member, LocationMessage(tid: "al", tst: tst, lat: lat, lon: -8.6, acc: 5, vel: 36, batt: 80, t: "t"), receivedAt: received)
    }

    @Test("Every commit is fsynced: the writer runs synchronous=FULL in WAL mode, also after reopening the file")
    func synchronousFull() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("history.sqlite").path
        let first = try HistoryStore(path: path, logger: Build.quietLogger)
        #expect(try await first.write([Self.row(Build.alice, Build.t0)]) == 1)
        #expect(try first.writerSynchronousSetting() == 2, "2 is FULL; GRDB's WAL set-up leaves the writer at NORMAL (1)")
        let reopened = try HistoryStore(path: path, logger: Build.quietLogger)
        #expect(try reopened.writerSynchronousSetting() == 2)
        #expect(try await reopened.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test("Locations come back ordered by tst whatever order they arrived in, in separate batches too")
    func outOfOrder() async throws {
        let store = try Self.open()
        let t0 = Build.t0
        #expect(try await store.write([Self.row(Build.alice, t0 + 30), Self.row(Build.alice, t0 + 10)]) == 2)
        #expect(try await store.write([Self.row(Build.alice, t0 + 20), Self.row(Build.bob, t0 + 5), Self.row(Build.alice, t0)]) == 3)
        let locations = try await store.locations(of: Build.alice, from: t0, to: t0 + 100, limit: 100)
        #expect(locations.map(\.fix.tst) == [t0, t0 + 10, t0 + 20, t0 + 30])
        #expect(locations.allSatisfy { $0.member == Build.alice && $0.fix.vel == 36 && $0.fix.batt == 80 && $0.fix.t == "t" })
        let window = try await store.locations(of: Build.alice, from: t0 + 10, to: t0 + 20, limit: 100)
        #expect(window.map(\.fix.tst) == [t0 + 10, t0 + 20])
        #expect(try await store.locations(of: Build.alice, from: t0, to: t0 + 100, limit: 2).map(\.fix.tst) == [t0, t0 + 10])
        #expect(try await store.lastLocations().map { "\($0.member)@\($0.fix.tst)" } == ["alice/phone@\(t0 + 30)", "bob/phone@\(t0 + 5)"])
        #expect(try await store.users() == ["alice", "bob"])
        #expect(try await store.devices(of: "alice") == ["phone"])
        #expect(try await store.devices(of: "nobody").isEmpty)
    }

    @Test("A duplicate (same member, same tst) is stored once, the first copy kept, in one batch or across batches")
    func duplicates() async throws {
        let store = try Self.open()
        let t0 = Build.t0
        #expect(try await store.write([Self.row(Build.alice, t0, lat: 1), Self.row(Build.alice, t0, lat: 2)]) == 1)
        #expect(try await store.write([Self.row(Build.alice, t0, lat: 3), Self.row(Build.bob, t0, lat: 4)]) == 1)
        let alice = try await store.locations(of: Build.alice, from: 0, to: .max, limit: 10)
        #expect(alice.map(\.fix.lat) == [1])
        #expect(try await store.counts().locations == 2)
    }

    @Test("The file survives reopening; SQL-ish names are data, not SQL")
    func reopen() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("history.sqlite").path
        let odd = MemberID(user: "x'); DROP TABLE location;--", device: "d\"")
        do {
            let store = try HistoryStore(path: path, logger: Build.quietLogger)
            _ = try await store.write([Self.row(odd, Build.t0), Self.row(Build.alice, Build.t0)])
        }
        let again = try HistoryStore(path: path, logger: Build.quietLogger)
        #expect(try await again.locations(of: odd, from: 0, to: .max, limit: 10).count == 1)
        #expect(try await again.counts().locations == 2)
    }

    @Test("Retention removes what is older than each member's period, the longest of its circles; logged and counted")
    func retention() async throws {
        let store = try Self.open()
        let now = Build.t0
        let day = 86_400
        // carol is in family only; alice in family and carpool (no rule: 30 days); bob in family and
        // field-team; dave in field-team and carpool; zed in no circle.
        let zed = MemberID(user: "zed", device: "phone")
        var rows: [HistoryRow] = []
        for member in [Build.alice, Build.bob, Build.carol, Build.dave, zed] {
            rows += [Self.row(member, now - 40 * day), Self.row(member, now - 10 * day), Self.row(member, now - day)]
        }
        _ = try await store.write(rows)
        let (logger, logs) = Logger.capturing()
        let views = try Build.store()
        let writer = HistoryWriter(
            store: store, retention: HistoryRetention(days: 30, circleDays: ["family": 5, "field-team": 0]), views: views, logger: logger)
        await writer.applyRetention(now: Build.date(now))
        func tsts(_ member: MemberID) async throws -> [Int] {
            try await store.locations(of: member, from: 0, to: .max, limit: 10).map { (now - $0.fix.tst) / day }
        }
        #expect(try await tsts(Build.carol) == [1])  // family: 5 days
        #expect(try await tsts(Build.alice) == [10, 1])  // carpool's 30 days beat family's 5
        #expect(try await tsts(Build.bob) == [40, 10, 1])  // field-team keeps for ever
        #expect(try await tsts(Build.dave) == [40, 10, 1])
        #expect(try await tsts(zed) == [10, 1])  // no circle: the global 30 days
        #expect(logs.entries.contains { $0.message.description.contains("retention removed") && $0.metadata["whereabouts.history.removed"] == "4" })
        let metrics = String(decoding: await views.renderMetrics(), as: UTF8.self)
        #expect(metrics.contains(#"whereabouts_sub_history_rows_total{outcome="expired"} 4"#), "\(metrics)")
    }

    @Test("The size cap removes the oldest rows until the data fits, keeps the newest; logged and counted")
    func sizeCap() async throws {
        let store = try Self.open()
        let t0 = Build.t0
        for batch in 0..<10 {
            _ = try await store.write((0..<2000).map { Self.row(Build.alice, t0 + batch * 2000 + $0) })
        }
        let before = try await store.usedBytes()
        let cap = before / 3
        let (logger, logs) = Logger.capturing()
        let views = try Build.store()
        let writer = HistoryWriter(store: store, retention: HistoryRetention(days: 0, maxBytes: cap), views: views, logger: logger)
        await writer.applyRetention(now: Build.date(t0))
        #expect(try await store.usedBytes() <= cap)
        let kept = try await store.locations(of: Build.alice, from: 0, to: .max, limit: 100_000).map(\.fix.tst)
        #expect(!kept.isEmpty && kept.count < 20_000)
        #expect(kept.last == t0 + 19_999)  // the newest stays
        #expect(kept == Array((t0 + 20_000 - kept.count)..<(t0 + 20_000)))  // only the oldest went, no holes
        let removed = 20_000 - kept.count
        #expect(logs.entries.contains { $0.level == .warning && $0.metadata["whereabouts.history.removed"] == "\(removed)" })
        let metrics = String(decoding: await views.renderMetrics(), as: UTF8.self)
        #expect(metrics.contains(#"whereabouts_sub_history_rows_total{outcome="capped"} \#(removed)"#), "\(metrics)")
    }

    @Test("Ingest hands accepted locations and transitions to the writer; rejected ones and duplicates are not stored")
    func ingestHandOver() async throws {
        let store = try Self.open()
        let views = try Build.store()
        let writer = HistoryWriter(store: store, views: views, logger: Build.quietLogger)
        let ingestor = Ingestor(store: views, router: TopicRouter(), settings: ViewSettings(), history: writer.recorder)
        let running = Task { try await writer.run() }
        let now = Int(Date().timeIntervalSince1970)
        func message(_ topic: String, _ json: String) -> MQTTMessage {
            MQTTMessage(topic: topic, payload: Data(json.utf8), qos: .atLeastOnce, retained: false)
        }
        for tst in [now - 5, now - 20, now - 5, now - 10] {  // one duplicate, out of order
            await ingestor.handle(message("owntracks/alice/phone", OwnTracksPayloads.androidLocation(tst: tst)))
        }
        await ingestor.handle(message("owntracks/alice/phone/event", OwnTracksPayloads.androidTransition(event: "enter", region: "Home", tst: now - 4)))
        await ingestor.handle(message("owntracks/alice/phone", #"{"_type":"location","lat":99,"lon":0,"tst":\#(now)}"#))  // out of range
        await ingestor.handle(message("owntracks/mallory/phone", OwnTracksPayloads.androidLocation(tst: now)))  // not a member
        running.cancel()  // the writer commits what is pending, then returns
        try await withTimeout(.seconds(10), "the history writer") { try await running.value }
        #expect(try await store.locations(of: Build.alice, from: 0, to: .max, limit: 10).map(\.fix.tst) == [now - 20, now - 10, now - 5])
        let counts = try await store.counts()
        #expect(counts.locations == 3 && counts.transitions == 1)
        #expect(try await store.users() == ["alice"])
    }

    @Test("A file that is not a database is refused with a message naming the file and the fix")
    func notADatabase() throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("history.sqlite").path
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try HistoryStore(path: path, logger: Build.quietLogger)
        } throws: { error in
            guard let error = error as? HistoryError, case .notADatabase = error else { return false }
            return error.description.contains(path) && error.description.contains("--history")
        }
    }

    @Test("Another program's SQLite file is refused and left as it was; a new, empty file is claimed")
    func foreignDatabase() throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("notes.sqlite").path
        // Another program's database: a table of its own, no application id.
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes (x); INSERT INTO notes VALUES (1)") }
        #expect(throws: HistoryError.foreignDatabase(path: path, applicationID: 0)) {
            _ = try HistoryStore(path: path, logger: Build.quietLogger)
        }
        let untouched = try DatabaseQueue(path: path).read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master"), try Int32.fetchOne(db, sql: "PRAGMA application_id"))
        }
        #expect(untouched.0 == 1 && untouched.1 == 0)
        // An empty file (as `touch` leaves it) is new: stamped with the history's id and used.
        let empty = directory.appendingPathComponent("empty.sqlite").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        _ = try HistoryStore(path: empty, logger: Build.quietLogger)
        let stamped = try DatabaseQueue(path: empty).read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") }
        #expect(stamped == HistoryStore.applicationID)
    }

    @Test("A folder that cannot be created is named in the error")
    func folderCannotBeCreated() throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let file = directory.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        let path = file.appendingPathComponent("sub/history.sqlite").path
        #expect {
            _ = try HistoryStore(path: path, logger: Build.quietLogger)
        } throws: { error in
            guard let error = error as? HistoryError, case .cannotCreateDirectory(let folder, _) = error else { return false }
            return folder == file.appendingPathComponent("sub").path && error.description.contains("Cannot create the history folder")
        }
    }
}
