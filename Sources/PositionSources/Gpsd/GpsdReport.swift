#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// The fields of a gpsd JSON report that the source reads (gpsd's `TPV` class; other classes only
/// need `class`). Every field is optional because gpsd omits what it does not know.
struct GpsdReport: Decodable {
    var `class`: String
    var mode: Int?
    var time: String?
    var lat: Double?
    var lon: Double?
    var alt: Double?
    var altMSL: Double?
    var eph: Double?
    var epx: Double?
    var epy: Double?
    var epv: Double?
    var speed: Double?
    var track: Double?

    /// What a line from gpsd amounts to.
    enum Outcome {
        /// A TPV with a 2D or 3D fix.
        case fix(Fix)
        /// Another report class (VERSION, DEVICES, SKY, ...): nothing to do.
        case other
        /// A report that must be counted and skipped.
        case rejected(SourceRejectionReason)
    }

    private static let decoder = JSONDecoder()

    /// Interprets one line of gpsd output.
    ///
    /// Accuracy is `eph`, or else the larger of `epx` and `epy` (gpsd's estimates, about 95 %
    /// confidence); vertical accuracy is `epv`; altitude is `altMSL`, or else `alt` (gpsd before
    /// 3.20), and only in mode 3; course is `track`.
    static func interpret(_ line: Substring) -> Outcome {
        let report: GpsdReport
        do {
            report = try decoder.decode(GpsdReport.self, from: Data(line.utf8))
        } catch {
            return .rejected(.malformedJSON)
        }
        guard report.class == "TPV" else { return .other }
        guard let mode = report.mode, mode >= 2 else { return .rejected(.noFix) }
        var candidate = FixCandidate()
        candidate.latitude = report.lat
        candidate.longitude = report.lon
        if let text = report.time {
            guard let time = UTCTime.parseISO8601(text) else { return .rejected(.malformedField) }
            candidate.time = time
        }
        candidate.horizontalAccuracy = report.eph ?? zip(report.epx, report.epy).map { max($0, $1) }
        if mode >= 3 {
            candidate.altitude = report.altMSL ?? report.alt
            candidate.verticalAccuracy = report.epv
        }
        candidate.speed = report.speed
        candidate.course = report.track
        switch candidate.validated(source: .gpsd) {
        case let .success(fix): return .fix(fix)
        case let .failure(reason): return .rejected(reason)
        }
    }
}

/// Both values, or `nil` when either is missing.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
