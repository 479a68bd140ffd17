@testable import Dashboard
import Foundation
import NIOCore
import Subscriber
import Testing
import WhereaboutsCore
import SystemSupport
import WhereaboutsTestSupport

/// The Recorder formats are written byte by byte (RecorderEncoder, RecorderBytes); the JSON
/// must say exactly what JSONSerialization says of the same object, and every format must be
/// byte for byte what the String-built reference (Utils/RecorderReference.swift) writes, for
/// hostile and random locations.
@Suite("Recorder location encoding written by hand")
struct RecorderLocationJSONTests {
    static let locations: [HistoryLocation] = {
        var full = LocationMessage(tid: "al", tst: 1_763_000_000, lat: 52.6638, lon: -8.6267, acc: 13)
        full.alt = 57; full.vac = 2; full.vel = 0; full.cog = 270; full.batt = 91; full.bs = 1; full.t = "p"; full.m = 1; full.createdAt = 1_763_000_003
        let bare = LocationMessage(tid: "", tst: 0, lat: -90, lon: 180, acc: 1)
        let hostile = LocationMessage(tid: "\"\\\n\t\u{1}é😀", tst: 4_102_444_799, lat: 1e-7, lon: -0.5, acc: 99_999)
        var negative = LocationMessage(tid: "a,b", tst: -1, lat: -0.0, lon: 5e-324, acc: -3)
        negative.alt = -431; negative.t = "x\r\ny\u{2028}\"q\""; negative.vel = Int.min; negative.cog = Int.max
        let ancient = LocationMessage(tid: "\u{7f}", tst: -62_135_596_801, lat: 1e300, lon: -1.2345678901234567e-300, acc: 0)
        let far = LocationMessage(tid: "z", tst: 253_402_300_800, lat: 9_007_199_254_740_993, lon: 123_456_789.125, acc: 0)
        return [
            HistoryLocation(member: MemberID(user: "alice", device: "phone"), fix: full, receivedAt: 1),
            HistoryLocation(member: MemberID(user: "b\"ob", device: "c/a\\r"), fix: bare, receivedAt: 2),
            HistoryLocation(member: MemberID(user: "ünï", device: "x\u{7f}"), fix: hostile, receivedAt: 3),
            HistoryLocation(member: MemberID(user: "co,mma", device: "new\nline"), fix: negative, receivedAt: 4),
            HistoryLocation(member: MemberID(user: "a", device: "b"), fix: ancient, receivedAt: 5),
            HistoryLocation(member: MemberID(user: "q\"", device: "\u{85}"), fix: far, receivedAt: 6),
        ]
    }()

    /// Locations with random values: coordinates as devices send them (up to 15 decimals) and
    /// any bit pattern, times from 1900 to 2300, texts from a hostile alphabet.
    static func randomLocations(count: Int, seed: UInt64) -> [HistoryLocation] {
        var generator = SplitMix64(seed: seed)
        let alphabet: [Character] = ["a", "Z", "0", ",", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{7f}", "é", "😀", " ", "/", "\u{2028}"]
        func text() -> String { String((0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }) }
        func coordinate() -> Double {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: (Double.random(in: -180...180, using: &generator) * 1e7).rounded() / 1e7
            case 1: Double.random(in: -180...180, using: &generator)
            default: Double(bitPattern: generator.next())
            }
        }
        func int() -> Int? { Bool.random(using: &generator) ? nil : Int.random(in: -100_000...100_000, using: &generator) }
        return (0..<count).map { _ in
            var fix = LocationMessage(
                tid: text(), tst: Int.random(in: -2_208_988_800...10_413_792_000, using: &generator), lat: coordinate(), lon: coordinate(),
                acc: Int.random(in: 0...5_000, using: &generator))
            fix.alt = int(); fix.vac = int(); fix.vel = int(); fix.cog = int(); fix.batt = int(); fix.bs = int(); fix.m = int(); fix.createdAt = int()
            fix.t = Bool.random(using: &generator) ? nil : text()
            return HistoryLocation(member: MemberID(user: text(), device: text()), fix: fix, receivedAt: 0)
        }
    }

    static let fieldLists: [[String]?] = [nil, ["tst", "lat", "lon"], ["_type", "topic", "nothing"], [], ["lon", "username", "t", "disptst", "created_at", "acc", "bs"]]

    static func encoded(_ location: HistoryLocation, format: RecorderFormat, fields: [String]?, index: Int, member: RecorderEncoder.Member? = nil) -> String {
        var buffer = ByteBuffer()
        RecorderEncoder(format: format, fields: fields)
            .append(location, of: member ?? RecorderEncoder.Member(location.member, format: format), index: index, to: &buffer)
        return String(buffer: buffer)
    }

    @Test("The same keys and values as JSONSerialization, for every field subset", arguments: fieldLists)
    func sameAsFoundation(fields: [String]?) throws {
        for location in Self.locations where location.fix.lat.isFinite && location.fix.lat.magnitude < 1e300 {
            let text = Self.encoded(location, format: .json, fields: fields, index: 0)
            let mine = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary, "\(text)")
            let reference = RecorderReference.object(location, fields: fields.map(Set.init)) as NSDictionary
            #expect(mine == reference, "\(text)")
        }
    }

    @Test("Every format, byte for byte what the String-built reference writes", arguments: RecorderFormat.allCases)
    func sameAsReference(format: RecorderFormat) async {
        // Seconds of encoding in a debug build: compared off the cooperative pool, every
        // difference reported here.
        let differences = await OffPool.run { () -> [String] in
            var differences: [String] = []
            let locations = Self.locations + Self.randomLocations(count: 3_000, seed: 14)
            for fields in Self.fieldLists {
                for (index, location) in locations.enumerated() {
                    let reference = format.referenceRecord(location, index: index % 2, fields: fields.map(Set.init), orderedFields: fields)
                    let fixed = Self.encoded(location, format: format, fields: fields, index: index % 2)
                    if fixed != reference {
                        differences.append("\(format) \(String(describing: fields)) \(location): \(fixed) against \(reference)")
                    }
                    if format == .json || format == .csv || format == .xml {  // the member's texts taken from the location itself (`/api/0/last`)
                        let ofEachPoint = Self.encoded(location, format: format, fields: fields, index: index % 2, member: .ofEachPoint)
                        if ofEachPoint != reference {
                            differences.append("member of each point, \(format) \(String(describing: fields)) \(location): \(ofEachPoint) against \(reference)")
                        }
                    }
                }
            }
            return differences
        }
        #expect(differences.isEmpty, "\(differences.count) records differ; the first: \(differences.prefix(5).joined(separator: "\n"))")
    }

    @Test("A non-finite coordinate is JSON null, as JSONSerialization's reference writes it")
    func nonFinite() {
        let location = HistoryLocation(member: MemberID(user: "a", device: "b"), fix: LocationMessage(tid: "t", tst: 1, lat: .infinity, lon: .nan, acc: 1), receivedAt: 0)
        let text = Self.encoded(location, format: .json, fields: ["lat", "lon"], index: 0)
        #expect(text == #"{"lat":null,"lon":null}"#)
    }

    @Test("isotst is ISO 8601 in UTC, as Foundation writes it", arguments: [0, 1, 951_782_400, 1_763_000_000, 4_102_444_799])
    func isoTime(tst: Int) {
        #expect(RecorderLocation.isoTime(tst) == Date(timeIntervalSince1970: Double(tst)).formatted(.iso8601))
    }
}
