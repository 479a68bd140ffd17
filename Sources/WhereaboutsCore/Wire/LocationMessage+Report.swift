#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LocationMessage {
    /// Builds the wire message for a report, rounding every value exactly as it will be sent.
    ///
    /// - Parameters:
    ///   - report: The report to send.
    ///   - tid: The two-character tracker id.
    ///   - mode: The reporting profile in force.
    ///   - maxSilence: The publisher's `maxSilence` in seconds, sent when the report carries a
    ///     velocity so that dashboards know how long they may extrapolate. The report's own
    ///     ``Report/maxSilence``, when set, wins: it is the horizon the policy bounded.
    public init(report: Report, tid: String, mode: MonitoringMode? = nil, maxSilence: Int? = nil) {
        let fix = report.fix
        self.init(
            tid: tid,
            tst: Int(fix.time.timeIntervalSince1970.rounded(.down)),
            lat: Self.roundCoordinate(fix.latitude),
            lon: Self.roundCoordinate(fix.longitude),
            acc: max(1, Int((fix.horizontalAccuracy ?? Self.unknownAccuracy).rounded(.up))),
            alt: fix.altitude.map { Int($0.rounded()) },
            vac: fix.verticalAccuracy.map { max(1, Int($0.rounded(.up))) },
            vel: fix.speed.map { Int(($0 * 3.6).rounded()) },
            cog: fix.course.map { Int($0.rounded()) % 360 },
            t: report.trigger.rawValue,
            m: mode?.rawValue,
            ve: report.velocity.map { Self.roundVelocity($0.east) },
            vn: report.velocity.map { Self.roundVelocity($0.north) },
            ms: report.velocity == nil ? nil : (report.maxSilence ?? maxSilence),
            tr: report.velocity == nil ? nil : report.turnRate.map { Self.roundVelocity($0) }.flatMap { $0 == 0 ? nil : $0 }
        )
    }

    /// The accuracy sent when the source gave none, in metres: a conservative consumer-GPS figure,
    /// so that receivers that need `acc > 0` (Home Assistant) keep the message.
    static let unknownAccuracy = 10.0

    /// Rounds a latitude or longitude to the 6 decimals sent on the wire (about 0.11 m).
    static func roundCoordinate(_ degrees: Double) -> Double {
        (degrees * 1e6).rounded() / 1e6
    }

    /// Rounds a velocity component to the 2 decimals sent on the wire (0.01 m/s).
    static func roundVelocity(_ metresPerSecond: Double) -> Double {
        (metresPerSecond * 100).rounded() / 100
    }
}
