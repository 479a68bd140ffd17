import Foundation
import WhereaboutsTestSupport
import Testing
import WhereaboutsCore
@testable import PositionSources

@Suite("NMEA source")
struct NMEATests {
    let logger = Fixtures.quietLogger
    let uere = DilutionOfPrecision.defaultUERE
    let knot = 1852.0 / 3600.0

    @Test("Sailboat cut: epochs assembled into fixes, corrupted lines skipped and counted")
    func sailboatCut() throws {
        let track = try NMEAFile.read(contentsOf: Fixtures.url("nmea/sailboat-cut.nmea"), logger: logger)
        #expect(track.fixes.count == 9)
        #expect(track.rejections == SourceRejections(counts: [
            .badChecksum: 1, .truncated: 1, .invalidCoordinate: 1, .garbage: 1,
            // The first epoch (GGA before any RMC) and the three whose RMC was corrupted.
            .missingDate: 4,
        ]))
        let first = try #require(track.fixes.first)
        #expect(first.time == UTCTime.date(year: 2018, month: 8, day: 20, hour: 9, minute: 47, second: 37))
        #expect(abs(first.latitude - (52 + 51.0093 / 60)) < 1e-9)
        #expect(abs(first.longitude - (5 + 18.8170 / 60)) < 1e-9)
        #expect(first.speed == 5.6 * knot)
        #expect(first.course == 230.5)
        #expect(first.altitude == -4, "altitude from the GGA of the same epoch")
        #expect(first.horizontalAccuracy == 0.60 * uere, "HDOP from GSA")
        #expect(first.verticalAccuracy == 0.90 * uere, "VDOP from GSA")
        #expect(first.source == .nmea)
        #expect(zip(track.fixes, track.fixes.dropFirst()).allSatisfy { $0.time < $1.time })
    }

    @Test("Talkers GN, GL, GA, BD; southern and western hemispheres; no-fix epochs; old VTG")
    func multiTalker() throws {
        let track = try NMEAFile.read(contentsOf: Fixtures.url("nmea/multi-talker.nmea"), logger: logger)
        #expect(track.fixes.count == 2)
        #expect(track.rejections == SourceRejections(counts: [.missingDate: 1, .noFix: 1]))
        let gn = track.fixes[0]
        #expect(gn.time == UTCTime.date(year: 2023, month: 12, day: 31, hour: 23, minute: 59, second: 59.5))
        #expect(abs(gn.latitude + (33 + 52.1234 / 60)) < 1e-9)
        #expect(abs(gn.longitude + (151 + 12.5678 / 60)) < 1e-9)
        #expect(gn.speed == 10 * knot, "RMC speed wins over VTG")
        #expect(gn.course == 45)
        #expect(gn.altitude == 35.2)
        #expect(gn.horizontalAccuracy == 0.8 * uere)
        #expect(gn.verticalAccuracy == 1.4 * uere)
        let bd = track.fixes[1]
        #expect(bd.speed == 3.7 / 3.6, "pre-2.3 VTG: km/h field")
        #expect(bd.course == 90)
        #expect(bd.altitude == nil && bd.horizontalAccuracy == nil)
    }

    @Test("carryDate dates a GGA-only epoch from the last RMC, rolling over at midnight")
    func carryDate() throws {
        let track = try NMEAFile.read(
            contentsOf: Fixtures.url("nmea/multi-talker.nmea"), options: NMEAOptions(carryDate: true), logger: logger
        )
        #expect(track.fixes.count == 3)
        let gl = track.fixes[1]
        #expect(gl.time == UTCTime.date(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0.5))
        #expect(gl.altitude == 36.0)
        #expect(gl.speed == 9 * knot, "GA VTG without km/h: knots")
        #expect(gl.course == 50)
        #expect(gl.horizontalAccuracy == 1.1 * uere, "HDOP from GGA when there is no GSA")
    }

    @Test("Checksums: verified, case-insensitive hex; missing or cut-off checksums are truncation")
    func checksums() {
        func reason(_ line: String) -> SourceRejectionReason? {
            if case let .rejected(reason) = NMEASentence.parse(line[...]) { return reason }
            return nil
        }
        #expect(reason("$GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A*19") == nil)
        #expect(reason("$GPGSA,A,3,07,08,10,16,20,21,26,27,29,76,75,70,1.10,0.60,0.90*0b") == nil)
        #expect(reason("$GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A*18") == .badChecksum)
        #expect(reason("$GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A") == .truncated)
        #expect(reason("$GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A*1") == .truncated)
        #expect(reason("GPVTG,230.5,T*19") == .garbage)
        #expect(reason("$" + String(repeating: "A", count: 300) + "*00") == .oversizeLine)
        #expect(reason("# a comment") == nil)
    }

    @Test("An empty file yields no fix and one empty-input rejection")
    func emptyFile() throws {
        let track = try NMEAFile.read(contentsOf: Fixtures.url("nmea/empty.nmea"), logger: logger)
        #expect(track.fixes.isEmpty)
        #expect(track.rejections == SourceRejections(counts: [.emptyInput: 1]))
    }

    @Test("The async source reading a file yields what the whole-file reader does")
    func asyncFile() async throws {
        let url = Fixtures.url("nmea/sailboat-cut.nmea")
        let source = NMEASource(input: .path(url.path), logger: logger)
        let fixes = try await withTimeout(.seconds(10)) {
            var fixes: [Fix] = []
            for try await fix in source { fixes.append(fix) }
            return fixes
        }
        let expected = try NMEAFile.read(contentsOf: url, logger: logger)
        #expect(fixes == expected.fixes)
        #expect(source.rejections.snapshot == expected.rejections)
    }

    @Test("A missing path is an error from the iterator")
    func missingPath() async {
        let source = NMEASource(input: .path("/nonexistent/gps.nmea"), logger: logger)
        await #expect(throws: PositionSourceError.self) {
            for try await _ in source {}
        }
    }

    @Test("A serial device (real pseudo-terminal): fixes arrive live, one per epoch, and unplugging ends the source")
    func serialDevice() async throws {
        let tty = try PseudoTerminal()
        let source = NMEASource(input: .path(tty.path), options: NMEAOptions(baudRate: 9600, epochIdleTimeout: 0.2), logger: logger)
        let lines = try String(contentsOf: Fixtures.url("nmea/multi-talker.nmea"), encoding: .utf8)
            .split(separator: "\n").map { $0 + "\r\n" }
        let fixes = try await withTimeout(.seconds(15)) {
            var iterator = source.makeAsyncIterator()
            // The first epoch arrives by itself: the source issues it when the line goes quiet.
            tty.write(lines[0..<5].joined())
            let first = try await iterator.next()
            // The rest, then unplug: the source issues the last epoch and ends.
            tty.write(lines[5...].joined())
            var rest: [Fix] = []
            while rest.isEmpty {
                if let fix = try await iterator.next() { rest.append(fix) } else { break }
            }
            tty.close()
            while let fix = try await iterator.next() { rest.append(fix) }
            return [first].compactMap { $0 } + rest
        }
        #expect(fixes.count == 2)
        #expect(fixes.first?.course == 45)
        #expect(fixes.last?.course == 90)
    }

    @Test("Shared sailboat log yields its 146 fixes", .enabled(if: Fixtures.hasSharedTraces, "needs ../shared/traces"))
    func sailboatShared() throws {
        let track = try NMEAFile.read(contentsOf: Fixtures.trace("sailboat-zeus.nmea"), logger: logger)
        #expect(track.fixes.count == 146)
        // The first GGA precedes any RMC; two epochs (09:48:34, 09:49:36) have a GGA but no RMC.
        #expect(track.rejections == SourceRejections(counts: [.missingDate: 3]))
        // The log repeats one RMC block (09:49:45): two fixes with one time, left to the filters.
        #expect(Set(track.fixes.map(\.time)).count == 145)
        #expect(track.fixes.allSatisfy { $0.speed != nil && $0.course != nil })
        // Epochs with an RMC but no GGA have no altitude; five of them also got no GSA.
        #expect(track.fixes.filter { $0.altitude == nil }.count == 11)
        #expect(track.fixes.filter { $0.horizontalAccuracy == nil }.count == 5)
    }
}

#if canImport(Glibc)
import Glibc

extension NMEATests {
    @Test("Standard input: a pipe put in place of fd 0 is read to its end and left open")
    func standardInput() async throws {
        var pipeEnds: [Int32] = [0, 0]
        try #require(pipe(&pipeEnds) == 0)
        let savedInput = dup(STDIN_FILENO)
        try #require(savedInput >= 0 && dup2(pipeEnds[0], STDIN_FILENO) >= 0)
        close(pipeEnds[0])
        defer {
            dup2(savedInput, STDIN_FILENO)
            close(savedInput)
        }
        let log = try Data(contentsOf: Fixtures.url("nmea/multi-talker.nmea"))
        let writer = pipeEnds[1]
        _ = log.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        close(writer)

        let source = NMEASource(input: .standardInput, logger: logger)
        let fixes = try await withTimeout(.seconds(10)) {
            var fixes: [Fix] = []
            for try await fix in source { fixes.append(fix) }
            return fixes
        }
        #expect(fixes == (try NMEAFile.read(contentsOf: Fixtures.url("nmea/multi-talker.nmea"), logger: logger)).fixes)
        #expect(fcntl(STDIN_FILENO, F_GETFD) >= 0, "the source does not close stdin")
    }
}
#endif
