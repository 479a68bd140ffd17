import Foundation
import WhereaboutsTestSupport
import Logging
import Testing
@testable import WhereaboutsCore
@testable import PositionSources

@Suite("Rejections")
struct RejectionTests {
    @Test("Each rejection is logged once: the first of a reason at info, the rest at debug, without coordinates")
    func logging() throws {
        let (logger, store) = Logger.capturing()
        let track = try GPXFile.read(contentsOf: Fixtures.url("gpx/malformed-points.gpx"), logger: logger)
        let records = store.entries
        #expect(records.count == track.rejections.total)
        #expect(records.filter { $0.level == .info }.count == track.rejections.counts.count, "one info per reason")
        #expect(records.filter { $0.level == .debug }.count == track.rejections.total - track.rejections.counts.count)
        for record in records {
            #expect(record.metadata["whereabouts.source"] == "gpx")
            #expect(record.metadata["whereabouts.reject.reason"].flatMap { SourceRejectionReason(rawValue: "\($0)") } != nil)
            #expect(record.metadata["whereabouts.reject.at"].map { "\($0)" }?.hasPrefix("malformed-points.gpx:") == true)
            #expect(!"\(record.message)".contains("46.0") && !"\(record.message)".contains("15.0"), "no coordinates in logs")
        }
    }

    @Test("A line far longer than any sentence is counted once, and the reader carries on")
    func oversizeLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("whereabouts-oversize-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("noisy.nmea")
        let epoch = try String(contentsOf: Fixtures.url("nmea/multi-talker.nmea"), encoding: .utf8)
            .split(separator: "\n").prefix(5).joined(separator: "\r\n")
        try (String(repeating: "\u{7}A", count: 10_000) + "\r\n" + epoch + "\r\n").write(to: url, atomically: true, encoding: .utf8)

        let source = NMEASource(input: .path(url.path), logger: Fixtures.quietLogger)
        let fixes = try await withTimeout(.seconds(10)) {
            var fixes: [Fix] = []
            for try await fix in source { fixes.append(fix) }
            return fixes
        }
        #expect(fixes.count == 1)
        #expect(source.rejections.snapshot == SourceRejections(counts: [.oversizeLine: 1]))
        let whole = try NMEAFile.read(contentsOf: url, logger: Fixtures.quietLogger)
        #expect(whole.fixes == fixes)
        #expect(whole.rejections == SourceRejections(counts: [.oversizeLine: 1]))
    }

    @Test("Counts add up and list in declaration order")
    func counts() {
        var a = SourceRejections()
        a.record(.noFix)
        a.record(.badChecksum, count: 2)
        let b = SourceRejections(counts: [.noFix: 3, .garbage: 0])
        let sum = a.merging(b)
        #expect(sum.total == 6)
        #expect(sum[.noFix] == 4 && sum[.garbage] == 0)
        #expect(sum.sorted.map(\.reason) == [.badChecksum, .noFix])
        #expect(!sum.isEmpty && SourceRejections().isEmpty)
    }
}
