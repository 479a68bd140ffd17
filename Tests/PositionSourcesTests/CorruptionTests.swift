import Foundation
import Testing
import WhereaboutsCore
@testable import PositionSources
import SystemSupport
import WhereaboutsTestSupport

/// Seeded random damage to real input: whatever happens to the bytes, a source must not crash and
/// must not yield a fix that is invalid or that the undamaged input did not contain.
@Suite("Corrupted input")
struct CorruptionTests {
    let logger = Fixtures.quietLogger

    /// `data` with `count` bytes replaced by random bytes (printable, control, NUL, `$`, `*`, `,`, newline).
    func damaged(_ data: Data, seed: UInt64, count: Int) -> Data {
        var random = SplitMix64(seed: seed)
        var bytes = [UInt8](data)
        let replacements: [UInt8] = [0, 0x07, 0x0A, 0x0D, 0x24, 0x2A, 0x2C, 0x2E, 0x30, 0x39, 0x41, 0x4E, 0x53, 0x7F, 0xC3, 0xFF]
        for _ in 0..<count {
            let index = Int(random.next() % UInt64(bytes.count))
            bytes[index] = random.chance(0.5) ? replacements[Int(random.next() % UInt64(replacements.count))] : UInt8(truncatingIfNeeded: random.next())
        }
        return Data(bytes)
    }

    @Test("Damaged NMEA: only valid fixes, each one the undamaged log also has", arguments: 0..<4)
    func nmea(batch: Int) async throws {
        // A hundred parses of the log, seconds in a debug build: off the cooperative pool, every
        // problem reported here.
        let problems = try await OffPool.run { () throws -> [String] in
            // The fixture without its deliberately broken lines: damage to a line that is already
            // broken can repair its checksum (two changes whose XORs cancel) and make a valid sentence.
            let fixture = try String(contentsOf: Fixtures.url("nmea/sailboat-cut.nmea"), encoding: .utf8)
            let cleanLines = fixture.utf8.split(separator: 0x0A).map { Substring($0) }.filter {
                if case .rejected = NMEASentence.parse($0) { return false }
                return true
            }
            let clean = Data(cleanLines.joined(separator: "\n").utf8)
            let reference = NMEAFile.parse(clean, rejections: RejectionCounter(source: "nmea", logger: logger)).fixes
            let byTime = Dictionary(reference.map { ($0.time, $0) }, uniquingKeysWith: { first, _ in first })
            var problems: [String] = []
            for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
                let counter = RejectionCounter(source: "nmea", logger: logger)
                let track = NMEAFile.parse(damaged(clean, seed: seed, count: 1 + Int(seed % 8)), rejections: counter)
                if !(counter.snapshot.total > 0 || track.fixes == reference) { problems.append("seed \(seed): damage went unnoticed") }
                for fix in track.fixes {
                    if !fix.coordinate.isValid { problems.append("seed \(seed): an invalid coordinate \(fix.coordinate)") }
                    guard let original = byTime[fix.time] else {
                        problems.append("seed \(seed): a fix at a time the log does not have")
                        continue
                    }
                    if !(Geodesy.distance(fix.coordinate, original.coordinate) < 50) { problems.append("seed \(seed): position moved") }
                }
            }
            return problems
        }
        #expect(problems.isEmpty, "\(problems.count) problems; the first: \(problems.prefix(5).joined(separator: "\n"))")
    }

    @Test("Damaged or cut GPX: never a crash, only valid fixes, never more than the file holds", arguments: 0..<2)
    func gpx(batch: Int) throws {
        let clean = try Data(contentsOf: Fixtures.url("gpx/gpx11-garmin-extensions.gpx"))
        for seed in UInt64(batch * 100)..<UInt64(batch * 100 + 100) {
            var input = damaged(clean, seed: seed, count: 1 + Int(seed % 4))
            if seed % 3 == 0 { input = input.prefix(Int(seed * 37 % UInt64(input.count))) }
            let track = GPXFile.parse(input, rejections: RejectionCounter(source: "gpx", logger: logger))
            #expect(track.fixes.count <= 4)
            #expect(track.fixes.allSatisfy { $0.coordinate.isValid && ($0.speed ?? 0) >= 0 && ($0.speed ?? 0).isFinite })
        }
    }

    @Test("Damaged gpsd reports: only valid fixes or counted rejections")
    func gpsd() {
        let line = #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2018-08-20T09:47:42.000Z","ept":0.005,"lat":52.850075000,"lon":5.313446667,"epx":7.468,"epy":8.884,"epv":20.700,"track":237.3000,"speed":2.675,"eph":11.400}"#
        var fixes = 0
        for seed in UInt64(0)..<500 {
            let bytes = damaged(Data(line.utf8), seed: seed, count: 1 + Int(seed % 3))
            switch GpsdReport.interpret(Substring(String(decoding: bytes, as: UTF8.self))) {
            case let .fix(fix):
                fixes += 1
                #expect(fix.coordinate.isValid && (fix.horizontalAccuracy ?? 0) >= 0 && (fix.speed ?? 0) >= 0)
            case .other, .rejected:
                break
            }
        }
        #expect(fixes > 0 && fixes < 500, "some damage leaves a valid report, some does not")
    }
}
