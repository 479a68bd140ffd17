import Foundation
import Testing
import WhereaboutsCore
@testable import PositionSources

@Suite("GPX source")
struct GPXTests {
    let logger = Fixtures.quietLogger

    @Test("GPX 1.0: segments, elevation, <speed>, <course>, DOPs and time zones")
    func gpx10() throws {
        let track = try GPXFile.read(contentsOf: Fixtures.url("gpx/gpx10-speed-course.gpx"), logger: logger)
        #expect(track.fixes.count == 5)
        #expect(track.segmentStarts == [0, 3])
        #expect(track.rejections.isEmpty)
        let first = try #require(track.fixes.first)
        #expect(first.latitude == 45.1 && first.longitude == 14.2)
        #expect(first.time == Date(timeIntervalSince1970: 1_714_550_400))
        #expect(first.altitude == 120.5)
        #expect(first.speed == 4.5)
        #expect(first.course == 90)
        #expect(first.horizontalAccuracy == 1.2 * DilutionOfPrecision.defaultUERE)
        #expect(first.verticalAccuracy == 2.0 * DilutionOfPrecision.defaultUERE)
        #expect(first.source == .gpx)
        #expect(track.fixes[1].horizontalAccuracy == nil)
        #expect(track.fixes[2].time == Date(timeIntervalSince1970: 1_714_550_402.5))
        #expect(track.fixes[2].course == 0, "360 degrees is north, normalised to 0")
        #expect(track.fixes[2].horizontalAccuracy == 2.5 * DilutionOfPrecision.defaultUERE, "PDOP when there is no HDOP")
        #expect(track.fixes[3].speed == nil && track.fixes[3].altitude == nil)
        #expect(track.fixes[4].time == Date(timeIntervalSince1970: 1_714_550_400 + 310), "+02:00 offset converted to UTC")
    }

    @Test("GPX 1.1: Garmin TrackPointExtension speed and course, plain extension speed")
    func gpx11() throws {
        let track = try GPXFile.read(contentsOf: Fixtures.url("gpx/gpx11-garmin-extensions.gpx"), logger: logger)
        #expect(track.fixes.count == 4)
        #expect(track.rejections.isEmpty)
        #expect(track.fixes[0].speed == 12.5)
        #expect(track.fixes[0].course == 271.3)
        #expect(track.fixes[0].horizontalAccuracy == 0.8 * DilutionOfPrecision.defaultUERE)
        #expect(track.fixes[1].course == 272, "-88 degrees wraps to 272")
        #expect(track.fixes[2].speed == 13.1)
        #expect(track.fixes[3].speed == nil && track.fixes[3].course == nil)
        #expect(track.fixes.map(\.time.timeIntervalSince1970) == [1_694_325_600, 1_694_325_601, 1_694_325_602, 1_694_325_603])
    }

    @Test("Malformed track points are skipped, each counted under its reason")
    func malformedPoints() throws {
        let track = try GPXFile.read(contentsOf: Fixtures.url("gpx/malformed-points.gpx"), logger: logger)
        #expect(track.fixes.map(\.latitude) == [46.0, 46.00009])
        #expect(track.fixes[1].speed == 1.5)
        let r = track.rejections
        #expect(r[.invalidCoordinate] == 3)
        #expect(r[.malformedField] == 2)
        #expect(r[.missingTime] == 1)
        #expect(r[.truncated] == 1)
        #expect(r[.invalidValue] == 3)
        #expect(r.total == 10)
    }

    @Test("Broken XML keeps the points before the fault and counts it once")
    func truncatedXML() throws {
        let track = try GPXFile.read(contentsOf: Fixtures.url("gpx/truncated.gpx"), logger: logger)
        #expect(track.fixes.count == 2)
        #expect(track.rejections[.malformedXML] == 1)
        #expect(track.rejections.total == 1)
    }

    @Test("An empty file yields no fix and one empty-input rejection")
    func emptyFile() throws {
        let track = try GPXFile.read(contentsOf: Fixtures.url("gpx/empty.gpx"), logger: logger)
        #expect(track.fixes.isEmpty)
        #expect(track.rejections == SourceRejections(counts: [.emptyInput: 1]))
    }

    @Test("A missing file is an error that names the path")
    func missingFile() {
        #expect(throws: PositionSourceError.self) {
            try GPXFile.read(contentsOf: URL(fileURLWithPath: "/nonexistent/track.gpx"), logger: logger)
        }
    }

    @Test("The async source yields the same fixes as the whole-file reader")
    func asyncMatchesSync() async throws {
        let url = Fixtures.url("gpx/malformed-points.gpx")
        let source = GPXSource(url: url, logger: logger)
        var fixes: [Fix] = []
        for try await fix in source { fixes.append(fix) }
        #expect(fixes == (try GPXFile.read(contentsOf: url, logger: logger)).fixes)
        #expect(source.rejections.snapshot.total == 10)
    }

    @Test("Stopping early ends the async source without reading on")
    func asyncStopsEarly() async throws {
        let source = GPXSource(url: Fixtures.url("gpx/gpx10-speed-course.gpx"), logger: logger)
        var count = 0
        for try await _ in source {
            count += 1
            if count == 2 { break }
        }
        #expect(count == 2)
    }

    @Test("The async source throws for a missing file")
    func asyncMissingFile() async {
        let source = GPXSource(url: URL(fileURLWithPath: "/nonexistent/track.gpx"), logger: logger)
        await #expect(throws: PositionSourceError.self) {
            for try await _ in source {}
        }
    }

    @Test(
        "Shared traces load with their known fix counts",
        .enabled(if: Fixtures.hasSharedTraces, "needs ../shared/traces"),
        arguments: [
            ("bus-limerick.gpx", 2144), ("around-visnjan-with-car.gpx", 104),
            ("korita-zbevnica.gpx", 513), ("cerknicko-jezero.gpx", 296),
        ]
    )
    func sharedTraces(name: String, expected: Int) throws {
        let track = try GPXFile.read(contentsOf: Fixtures.trace(name), logger: logger)
        #expect(track.fixes.count == expected)
        #expect(track.fixes.allSatisfy { $0.coordinate.isValid })
        #expect(zip(track.fixes, track.fixes.dropFirst()).allSatisfy { $0.time <= $1.time } || track.segmentStarts.count > 1)
    }

    @Test("korita-zbevnica: the track points without a time are counted, not guessed", .enabled(if: Fixtures.hasSharedTraces))
    func koritaMissingTimes() throws {
        let track = try GPXFile.read(contentsOf: Fixtures.trace("korita-zbevnica.gpx"), logger: logger)
        #expect(track.rejections == SourceRejections(counts: [.missingTime: 871 - 513]))
    }
}
