import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport
@testable import Subscriber
import SystemSupport

/// The copy of each member's newest location that the "v3-read-last-location" triggers keep
/// (`/api/0/last` reads it), against a real SQLite file: it must always equal the newest row of
/// `location` (by `tst`), whatever inserts, late points, duplicates, corrections, retention and
/// the cap did, and a file made before the copy existed gets it filled when opened.
@Suite("History: each member's last location (real SQLite, triggers)")
struct HistoryLastLocationTests {
    static func row(_ member: MemberID, _ tst: Int, lat: Double = 52.0, t: String? = "u", alt: Int? = nil) -> HistoryRow {
        var fix = LocationMessage(tid: "al", tst: tst, lat: lat, lon: -8.6, acc: 5, vel: 36, batt: 80, t: t)
        fix.alt = alt
        return .location(member, fix, receivedAt: Double(tst) + 0.5)
    }

    /// The newest location of each member read from `location` itself, the way `/api/0/last`
    /// answered before the copy existed.
    static func expectedLast(_ store: HistoryStore, members: [MemberID]) async throws -> [HistoryLocation] {
        var last: [HistoryLocation] = []
        for member in members.sorted(by: { ($0.user, $0.device) < ($1.user, $1.device) }) {
            if let newest = try await store.locations(of: member, from: .min, to: .max, limit: .max).last { last.append(newest) }
        }
        return last
    }

    @Test("The newest by tst, all fields; a late older point and a duplicate do not move it back")
    func newestByTST() async throws {
        let store = try HistoryStoreTests.open()
        let t0 = Build.t0
        _ = try await store.write([Self.row(Build.alice, t0 + 60, lat: 1, t: nil, alt: 7), Self.row(Build.bob, t0, lat: 2)])
        _ = try await store.write([Self.row(Build.alice, t0 + 30, lat: 3)])  // late: older than the newest
        _ = try await store.write([Self.row(Build.alice, t0 + 60, lat: 4)])  // duplicate: ignored
        let last = try await store.lastLocations()
        #expect(last.map(\.member) == [Build.alice, Build.bob])
        #expect(last.first?.fix.tst == t0 + 60)
        #expect(last.first?.fix.lat == 1)
        #expect(last.first?.fix.t == nil)
        #expect(last.first?.fix.alt == 7)
        #expect(last.first?.receivedAt == Double(t0 + 60) + 0.5)
        #expect(last == (try await Self.expectedLast(store, members: [Build.alice, Build.bob])))
        _ = try await store.write([Self.row(Build.alice, t0 + 90, lat: 5)])
        #expect(try await store.lastLocations(user: "alice").map(\.fix.lat) == [5])
        #expect(try await store.lastLocations(user: "alice", device: "phone").map(\.fix.tst) == [t0 + 90])
        #expect(try await store.lastLocations(user: "alice", device: "tablet").isEmpty)
        #expect(try await store.lastLocations(user: "nobody").isEmpty)
    }

    @Test("Deleting the newest point falls back to the one before; deleting all removes the member")
    func corrections() async throws {
        let store = try HistoryStoreTests.open()
        let t0 = Build.t0
        _ = try await store.write((0..<10).map { Self.row(Build.alice, t0 + $0 * 10, lat: Double($0)) } + [Self.row(Build.bob, t0)])
        _ = try await store.deleteLocations(of: Build.alice, from: t0 + 90, to: t0 + 90, actor: "alice", client: "test", at: 0)
        #expect(try await store.lastLocations(user: "alice").map(\.fix.tst) == [t0 + 80])
        _ = try await store.deleteLocations(of: Build.alice, from: t0 + 50, to: t0 + 200, actor: "alice", client: "test", at: 0)
        #expect(try await store.lastLocations(user: "alice").map(\.fix.lat) == [4])
        _ = try await store.deleteLocations(of: Build.alice, from: t0 + 10, to: t0 + 20, actor: "alice", client: "test", at: 0)  // not the newest
        #expect(try await store.lastLocations(user: "alice").map(\.fix.tst) == [t0 + 40])
        _ = try await store.deleteLocations(of: Build.alice, from: .min, to: .max, actor: "alice", client: "test", at: 0)
        #expect(try await store.lastLocations().map(\.member) == [Build.bob])
        _ = try await store.write([Self.row(Build.alice, t0 - 1000)])  // an old point after all were gone
        #expect(try await store.lastLocations(user: "alice").map(\.fix.tst) == [t0 - 1000])
    }

    @Test("After random writes, late points, corrections, retention and the cap, the copy equals the newest row")
    func randomised() async throws {
        let store = try HistoryStoreTests.open()
        let members = (0..<12).map { MemberID(user: "u\($0 % 5)", device: "d\($0)") }
        var generator = SplitMix64(seed: 14)
        let t0 = Build.t0
        for round in 0..<30 {
            let rows = (0..<200).map { _ in
                Self.row(members.randomElement(using: &generator)!, t0 + Int.random(in: 0..<5_000, using: &generator), lat: Double(round))
            }
            _ = try await store.write(rows)
            let member = members.randomElement(using: &generator)!
            let from = t0 + Int.random(in: 0..<5_000, using: &generator)
            _ = try await store.deleteLocations(of: member, from: from, to: from + Int.random(in: 0..<2_000, using: &generator), actor: "a", client: "c", at: 0)
            if round % 10 == 9 {
                _ = try await store.removeExpired(
                    retention: HistoryRetention(days: 1), membership: [:], now: Date(timeIntervalSince1970: Double(t0 + 86_400 + round * 100)))
            }
            #expect(try await store.lastLocations() == (try await Self.expectedLast(store, members: members)), "round \(round)")
        }
        _ = try await store.enforceCap(maxBytes: try await store.usedBytes() / 2)
        #expect(try await store.lastLocations() == (try await Self.expectedLast(store, members: members)), "after the cap")
    }

    @Test("With 2,000 members or more the last locations split at a pivot user into two halves that together are the whole, in order")
    func halves() async throws {
        let store = try HistoryStoreTests.open()
        #expect(try await store.lastLocationsPivot() == nil)
        let members = (0..<2_500).map { MemberID(user: "u\($0 % 1_200)", device: "d\($0)") }
        _ = try await store.write(members.map { Self.row($0, Build.t0 + $0.device.count) })
        let pivot = try #require(try await store.lastLocationsPivot())
        let all = try await store.lastLocations()
        func scan(_ users: HistoryUserRange) async throws -> [MemberID] {
            try await store.scanLastLocations(users: users) { rows throws(HistoryError) in
                var members: [MemberID] = []
                while try rows.next() { members.append(rows.memberID) }
                return members
            }
        }
        let before = try await scan(.before(pivot)), from = try await scan(.from(pivot))
        #expect(before + from == all.map(\.member))
        #expect(all.count == 2_500 && abs(before.count - from.count) < 10)
        #expect(before.allSatisfy { $0.user < pivot } && from.allSatisfy { $0.user >= pivot })
    }

    @Test("A history file made before the copy existed gets it filled when opened", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func migratesOldFile() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let path = directory.appendingPathComponent("history.sqlite").path
        let t0 = Build.t0
        do {
            let store = try HistoryStore(path: path, logger: Build.quietLogger)
            _ = try await store.write((0..<50).map { Self.row($0 % 2 == 0 ? Build.alice : Build.bob, t0 + $0) })
        }
        // Back to the schema of the version before: no copy, no triggers, migration not applied
        // (nor the later ones: no commit mark, no device fields).
        try FileManager.default.removeItem(atPath: path + "-mark")
        let downgrade = try await ToolRun.run("/usr/bin/sqlite3", [path, """
            DROP TRIGGER last_location_after_insert; DROP TRIGGER last_location_after_delete; DROP TRIGGER last_location_after_update;
            DROP TABLE last_location; DROP TABLE commit_mark;
            ALTER TABLE location DROP COLUMN device_fields; ALTER TABLE rejected DROP COLUMN device_fields;
            DELETE FROM grdb_migrations WHERE identifier IN ('v3-read-last-location', 'v4-commit-mark', 'v5-device-fields');
            """])
        #expect(downgrade.status == 0, "\(downgrade.stderr)")
        let reopened = try HistoryStore(path: path, logger: Build.quietLogger)
        #expect(reopened.damage.isEmpty, "\(reopened.damage)")
        #expect(try await reopened.lastLocations().map { "\($0.member)@\($0.fix.tst)" } == ["alice/phone@\(t0 + 48)", "bob/phone@\(t0 + 49)"])
        _ = try await reopened.write([Self.row(Build.alice, t0 + 100)])
        #expect(try await reopened.lastLocations(user: "alice").map(\.fix.tst) == [t0 + 100])
    }
}
