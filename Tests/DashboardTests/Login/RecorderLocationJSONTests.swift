@testable import Dashboard
import Foundation
import Subscriber
import Testing
import WhereaboutsCore

/// The streamed JSON of a location is written by hand (RecorderLocation+JSON.swift); it must say
/// exactly what JSONSerialization says of the same object.
@Suite("Recorder location JSON written by hand")
struct RecorderLocationJSONTests {
    static let locations: [HistoryLocation] = {
        var full = LocationMessage(tid: "al", tst: 1_763_000_000, lat: 52.6638, lon: -8.6267, acc: 13)
        full.alt = 57; full.vac = 2; full.vel = 0; full.cog = 270; full.batt = 91; full.bs = 1; full.t = "p"; full.m = 1; full.createdAt = 1_763_000_003
        let bare = LocationMessage(tid: "", tst: 0, lat: -90, lon: 180, acc: 1)
        let hostile = LocationMessage(tid: "\"\\\n\t\u{1}é😀", tst: 4_102_444_799, lat: 1e-7, lon: -0.5, acc: 99_999)
        return [
            HistoryLocation(member: MemberID(user: "alice", device: "phone"), fix: full, receivedAt: 1),
            HistoryLocation(member: MemberID(user: "b\"ob", device: "c/a\\r"), fix: bare, receivedAt: 2),
            HistoryLocation(member: MemberID(user: "ünï", device: "x\u{7f}"), fix: hostile, receivedAt: 3),
        ]
    }()

    @Test("The same keys and values as JSONSerialization, for every field subset", arguments: [nil, ["tst", "lat", "lon"], ["_type", "topic", "nothing"], []] as [Set<String>?])
    func sameAsFoundation(fields: Set<String>?) throws {
        for location in Self.locations {
            var text = ""
            RecorderLocation.json(location, fields: fields, into: &text)
            let mine = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary, "\(text)")
            let reference = RecorderLocation.object(location, fields: fields) as NSDictionary
            #expect(mine == reference, "\(text)")
            #expect(Array(mine.allKeys as? [String] ?? []).count == reference.count)
        }
    }

    @Test("isotst is ISO 8601 in UTC, as Foundation writes it", arguments: [0, 1, 951_782_400, 1_763_000_000, 4_102_444_799])
    func isoTime(tst: Int) {
        #expect(RecorderLocation.isoTime(tst) == Date(timeIntervalSince1970: Double(tst)).formatted(.iso8601))
    }
}
