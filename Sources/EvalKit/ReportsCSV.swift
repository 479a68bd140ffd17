import Foundation
import WhereaboutsCore

/// Every report of every policy as CSV (`--reports`), so anyone can check the numbers with their
/// own tools.
///
/// Columns: `policy,index,time,lat,lon,trigger,ve,vn,ms,tr`. `index` is the reported fix's position in
/// the accepted track (from 0), `time` its time in epoch seconds, `lat`/`lon` the position as
/// sent (6 decimals), `ve`/`vn` the east and north velocity in m/s a dashboard extrapolates with
/// (0 when the message says hold), `ms` the horizon in seconds the message carried (empty when
/// it carried none: a held position, or a policy without prediction), `tr` the turn rate in degrees
/// per second (empty for a straight line). With `tst` = `time` rounded
/// down, these reproduce ``LocationMessage/displayedPosition(at:)`` exactly. Then, to see why a
/// report went out as it did: `speed`/`course`, the receiver's measured speed (m/s) and course
/// (degrees) at the fix (empty when it gave none), and for `bounded` `estimator` (the one that
/// led), `rules` (those that changed the report from the leader's velocity sent from the fix,
/// `+`-separated) and `shadows` (each estimator's shadow's reports so far, `name=count`,
/// `+`-separated); empty for other policies.
package enum ReportsCSV {
    /// The header line's columns.
    package static let columns = ["policy", "index", "time", "lat", "lon", "trigger", "ve", "vn", "ms", "tr",
                                   "speed", "course", "estimator", "rules", "shadows"]

    /// The CSV text for every run of `evaluation`, with a header line.
    package static func render(_ evaluation: TrackEvaluation) -> String {
        var text = columns.joined(separator: ",") + "\n"
        for run in evaluation.runs {
            let policy = quoted(run.evaluation.policy)
            for report in run.reports {
                let message = report.message
                let fix = report.report.fix
                let speed: String = fix.speed.map { decimal($0, places: 2) } ?? ""
                let course: String = fix.course.map { decimal($0, places: 1) } ?? ""
                let choice = report.choice
                var shadows: [String] = []
                if let choice {
                    for (name, count) in zip(choice.estimators, choice.shadowReports) { shadows.append("\(name)=\(count)") }
                }
                let why: [String] = [speed, course, choice?.estimator ?? "", choice?.rules.map(\.rawValue).joined(separator: "+") ?? "",
                                     shadows.joined(separator: "+")]
                text += [
                    policy, String(report.index), decimal(report.report.fix.time.timeIntervalSince1970, places: 3),
                    decimal(message.lat, places: 6), decimal(message.lon, places: 6), message.t ?? "",
                    decimal(message.ve ?? 0, places: 2), decimal(message.vn ?? 0, places: 2),
                    message.ms.map(String.init) ?? "", message.tr.map { decimal($0, places: 2) } ?? "",
                ].joined(separator: ",") + "," + why.joined(separator: ",") + "\n"
            }
        }
        return text
    }

    static func decimal(_ value: Double, places: Int) -> String {
        String(format: "%.\(places)f", value)
    }

    static func quoted(_ field: String) -> String {
        field.contains(",") || field.contains("\"") ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }
}
