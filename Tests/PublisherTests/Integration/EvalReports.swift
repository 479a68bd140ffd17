import Foundation
import WhereaboutsTestSupport

/// One row of `whereabouts-eval --reports`: the report's fix time and position as sent.
struct EvalReport: Hashable {
    var tst: Int
    var lat: Double
    var lon: Double
    var trigger: String
}

/// Runs the real `whereabouts-eval --reports` on `track` with `policyArguments` and parses the CSV.
func evalReports(track: String, policyArguments: [String], directory: URL) async throws -> [EvalReport] {
    guard let eval = TestPaths.builtExecutable(named: "whereabouts-eval") else {
        throw SetupError("the whereabouts-eval binary (build it first)")
    }
    let csv = directory.appendingPathComponent("reports.csv")
    let result = try await ToolRun.run(eval.path, policyArguments + ["--reports", csv.path, track])
    guard result.status == 0 else {
        throw SetupError("whereabouts-eval exited with \(result.status): \(result.stderr)")
    }
    let text = try String(contentsOf: csv, encoding: .utf8)
    let lines = text.split(separator: "\n")
    // Columns by name from the header (policy,index,time,lat,lon,trigger,ve,vn,ms today), so a new
    // column does not shift the others; the policy name may be quoted but has no comma here.
    let header = (lines.first ?? "").split(separator: ",").map(String.init)
    guard let time = header.firstIndex(of: "time"), let lat = header.firstIndex(of: "lat"),
          let lon = header.firstIndex(of: "lon"), let trigger = header.firstIndex(of: "trigger") else {
        throw SetupError("a --reports CSV header with time, lat, lon and trigger (got \(header))")
    }
    return try lines.dropFirst().map { line in
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == header.count, let t = Double(fields[time]), let la = Double(fields[lat]),
              let lo = Double(fields[lon]) else {
            throw SetupError("a well-formed --reports CSV row (got \(line))")
        }
        return EvalReport(tst: Int(t.rounded(.down)), lat: la, lon: lo, trigger: fields[trigger])
    }
}
