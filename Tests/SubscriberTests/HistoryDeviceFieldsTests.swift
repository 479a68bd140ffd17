import Foundation
import GRDB
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// Issue 25: the history keeps every field the OwnTracks apps send, also those it has no column
/// for (`conn`, `p`, `SSID`, `BSSID`, `inrids`, `motionactivities`), and a file written before
/// keeps working.
@Suite("History keeps the apps' device fields")
struct HistoryDeviceFieldsTests {
    @Test("Android's and iOS's payloads through the real whereabouts-sub and mosquitto come back from the history field for field",
          .enabled(if: HistoryProcessTests.executable != nil))
    func roundTripThroughTheProcess() async throws {
        let rig = try await HistoryProcessRig.start(clientID: "sub-fields", prefix: "history-fields")
        let broker = rig.broker, path = rig.historyPath
        let (sub, _) = try await rig.spawnSubscribed("sub")
        let publisher = try await MQTTClient.connected(to: broker)
        let tst = Int(Date().timeIntervalSince1970) - 120
        try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: tst).utf8),
                                    qos: .atLeastOnce, retain: false)
        try await publisher.publish(to: "owntracks/eve/iphone", payload: Data(OwnTracksPayloads.iosQuietManualReport(tst: tst + 1).utf8),
                                    qos: .atLeastOnce, retain: false)
        try await waitUntil("both stored", timeout: .seconds(20)) { HistoryFullDiskProcessTests.storedTSTs(path) == [tst, tst + 1] }
        sub.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(20), "the subscriber to stop") { await sub.waitForExit() } == 0)

        let store = try HistoryStore(path: path, logger: Build.quietLogger)
        let android = try #require(try await store.locations(of: MemberID(user: "Dave", device: "handheld"), from: 0, to: .max, limit: 10).first?.fix)
        #expect(android.conn == "w")
        #expect(android.ssid == "home-wifi")
        #expect(android.bssid == "a4:2b:b0:11:22:33")
        #expect(android.inrids == ["6fe4a1"])
        #expect(android.p == nil && android.motionactivities == nil)
        let ios = try #require(try await store.locations(of: MemberID(user: "eve", device: "iphone"), from: 0, to: .max, limit: 10).first?.fix)
        #expect(ios.conn == "m")
        #expect(ios.p == 101.325)
        #expect(ios.motionactivities == ["stationary"])
        #expect(ios.ssid == nil && ios.bssid == nil && ios.inrids == nil)
        // The newest-location copy the Recorder API's /api/0/last reads carries them too.
        let lastFields = try await store.scanLastLocations(user: "Dave", device: "handheld") { (rows: inout HistoryLocationRows) throws(HistoryError) -> [String] in
            var fields: [String] = []
            while try rows.next() { fields.append(rows.withDeviceFields { $0.map { String(decoding: $0, as: UTF8.self) } ?? "" }) }
            return fields
        }
        #expect(lastFields == [#"{"conn":"w","SSID":"home-wifi","BSSID":"a4:2b:b0:11:22:33","inrids":["6fe4a1"]}"#])
        await publisher.disconnect()
        await broker.stop()
    }

    @Test("A history file written before the device fields is migrated: its rows read back without them, new rows keep them")
    func olderFileKeepsWorking() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("history.sqlite")
        // A file as the previous version left it: its schema up to v4, one location.
        do {
            let pool = try DatabasePool(path: path)
            try await pool.write { db in try db.execute(sql: "PRAGMA application_id = \(HistoryStore.applicationID)") }
            try HistoryStore.migrator.migrate(pool, upTo: "v4-commit-mark")
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO member (id, user, device) VALUES (1, 'alice', 'phone')")
                try db.execute(sql: "INSERT INTO location (member, tst, lat, lon, acc, tid, received_at) VALUES (1, \(Build.t0), 52.66, -8.63, 10, 'al', 0)")
            }
            try pool.close()
        }
        let store = try HistoryStore(path: path, logger: Build.quietLogger)
        #expect(store.damage.isEmpty)
        var fix = LocationMessage(tid: "al", tst: Build.t0 + 1, lat: 52.67, lon: -8.62, acc: 12)
        fix.conn = "w"
        fix.ssid = "caf\u{e9} \"net\""
        fix.motionactivities = ["walking", "on_foot"]
        #expect(try await store.write([.location(Build.alice, fix, receivedAt: 1)]) == 1)
        let read = try await store.locations(of: Build.alice, from: 0, to: .max, limit: 10).map(\.fix)
        #expect(read.map(\.tst) == [Build.t0, Build.t0 + 1])
        #expect(read[0].conn == nil && read[0].ssid == nil)
        #expect(read[1].conn == "w" && read[1].ssid == "caf\u{e9} \"net\"" && read[1].motionactivities == ["walking", "on_foot"])
    }
}
