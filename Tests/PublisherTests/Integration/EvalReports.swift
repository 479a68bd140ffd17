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
func evalReports(track: String, policyArguments: [String], directory: URL) throws -> [EvalReport] {
    guard let eval = TestPaths.builtExecutable(named: "whereabouts-eval") else {
        throw SetupError("the whereabouts-eval binary (build it first)")
    }
    let csv = directory.appendingPathComponent("reports.csv")
    let process = Process()
    process.executableURL = eval
    process.arguments = policyArguments + ["--reports", csv.path, track]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw SetupError("whereabouts-eval exited with \(process.terminationStatus)")
    }
    let text = try String(contentsOf: csv, encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // policy,index,time,lat,lon,trigger,ve,vn (the policy name may be quoted but has no comma here)
        let n = fields.count
        return EvalReport(
            tst: Int(Double(fields[n - 6])!.rounded(.down)), lat: Double(fields[n - 5])!, lon: Double(fields[n - 4])!,
            trigger: fields[n - 3])
    }
}
