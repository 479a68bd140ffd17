import Foundation
import Logging
import Testing
import WhereaboutsTestSupport
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

    @Test("An XML error in a GPX file is one malformed-xml rejection at the file's line, with the reason")
    func gpxErrorLabel() throws {
        let (logger, store) = Logger.capturing()
        let xml = """
            <gpx><trk><trkseg>
            <trkpt lat="46" lon="15"><time>2022-01-01T12:00:00Z</time></trkpt>
            <trkpt lat="46.1" lon="15"><time>2022-01-01T12:00:01Z</tim></trkpt>
            </trkseg></trk></gpx>
            """
        let track = GPXFile.parse(Data(xml.utf8), label: "t.gpx", rejections: RejectionCounter(source: "gpx", logger: logger))
        #expect(track.fixes.count == 1)
        #expect(track.rejections == SourceRejections(counts: [.malformedXML: 1]))
        let record = try #require(store.entries.first)
        #expect(record.metadata["whereabouts.reject.at"] == "t.gpx:3")
        #expect("\(record.message)".contains("mismatched end tag: expected </time>, found </tim>"))
    }

    @Test("Rejected track points are labelled with the line of their start tag")
    func gpxPointLines() {
        let (logger, store) = Logger.capturing()
        _ = try? GPXFile.read(contentsOf: Fixtures.url("gpx/malformed-points.gpx"), logger: logger)
        let lines = store.entries.compactMap { $0.metadata["whereabouts.reject.at"].map { "\($0)" } }
        #expect(lines == (6...15).map { "malformed-points.gpx:\($0)" })
    }

    @Test("A document cut short is malformed XML; entities and CDATA in fields are read")
    func gpxCutAndEntities() {
        let counter = RejectionCounter(source: "gpx", logger: Fixtures.quietLogger)
        let xml = """
            <gpx><trk><trkseg>
            <trkpt lat="4&#54;" lon='15'><ele>1&#48;0</ele><time><![CDATA[2022-01-01T12:00:00Z]]></time></trkpt>
            </trkseg></trk>
            """
        let track = GPXFile.parse(Data(xml.utf8), rejections: counter)
        #expect(track.fixes.count == 1)
        #expect(track.fixes.first?.latitude == 46 && track.fixes.first?.altitude == 100)
        #expect(track.rejections == SourceRejections(counts: [.malformedXML: 1]))
    }

    @Test("200,000 generated track points parse quickly")
    func largeTrack() async throws {
        // Seconds of synchronous work in a debug build: generated and parsed off the cooperative
        // pool, which the rest of the run shares.
        let count = 200_000
        let parsed = await OffPool.run {
            var bytes = Array(#"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" xmlns:gpxtpx="urn:g"><trk><trkseg>"#.utf8)
            bytes.append(0x0A)
            bytes.reserveCapacity(count * 200)
            for index in 0..<count {
                let seconds = index % 60, minutes = index / 60 % 60, hours = index / 3600 % 24
                let time = "2024-05-01T\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(seconds < 10 ? "0" : "")\(seconds)Z"
                bytes += Array(#"<trkpt lat="45.\#(100_000 + index)" lon="14.\#(200_000 + index)"><ele>12\#(index % 10).5</ele><time>\#(time)</time>"#.utf8)
                bytes += Array("<extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>4.5</gpxtpx:speed></gpxtpx:TrackPointExtension></extensions></trkpt>\n".utf8)
            }
            bytes += Array("</trkseg></trk></gpx>\n".utf8)
            let data = Data(bytes)
            let start = ContinuousClock.now
            let track = GPXFile.parse(data, rejections: RejectionCounter(source: "gpx", logger: Fixtures.quietLogger))
            let elapsed = ContinuousClock.now - start
            return (track: track, elapsed: elapsed, bytes: data.count)
        }
        // 86,400 distinct times a day: the points after the first day repeat their times, which the
        // reader does not judge (the filters downstream do).
        #expect(parsed.track.fixes.count == count)
        #expect(parsed.track.rejections.isEmpty)
        #if !DEBUG
        #expect(parsed.elapsed < .seconds(3), "\(parsed.elapsed) for \(parsed.bytes) bytes")
        #endif
    }
}
