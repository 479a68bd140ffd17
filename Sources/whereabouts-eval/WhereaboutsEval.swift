import ArgumentParser
import CommandLineDialect
import EvalKit
import Foundation
import Logging
import PolicyOptions
import WhereaboutsCore

/// `whereabouts-eval`: replays recorded tracks through reporting policies and reports their cost.
@main
struct WhereaboutsEval: ParsableCommand {
    /// Runs the command; an invalid command line exits with status 2.
    static func main() { mainWithUsageExitStatus() }

    static let configuration = CommandConfiguration(
        commandName: "whereabouts-eval",
        abstract: "Replay recorded tracks through reporting policies and measure what they cost and how wrong a dashboard would be.",
        discussion: """
        Each track (GPX 1.0/1.1 or an NMEA 0183 log, told apart by extension or content) passes the \
        rejection filters and then every chosen policy. For each track it prints one table: the \
        fixes read and rejected by reason, and per policy the reports, reports per hour, the largest \
        and 95th-percentile live error under the hold and predict display models, the largest track \
        error, the bytes on the wire, the radio wake-ups and their estimated energy, and its ratio \
        to the offline optimum (the fewest dead-reckoning reports that keep the bound, chosen with \
        hindsight). With --summary (corpus mode), one line per track and totals, median and worst \
        ratios over all tracks, each half of the split and each mode. See docs/eval.md.
        """,
        version: "0.1.0"
    )

    /// How the results are printed.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @OptionGroup var policies: PolicyOptions
    @OptionGroup var heartbeat: HeartbeatOptions

    @Option(name: .long, help: "The output format: table (aligned text) or json.")
    var format: Format = .table

    @Option(name: .long, help: ArgumentHelp(
        "Write every report of every policy to this CSV file (columns policy,index,time,lat,lon,trigger,ve,vn,ms,tr, then why: speed,course,estimator,rules,shadows); with several tracks, one file per track named after it.",
        valueName: "file.csv"))
    var reports: String?

    @Option(name: .long, help: ArgumentHelp(
        "Draw the track, the reported points and the live error of one policy to this SVG file; with several tracks, one file per track.",
        valueName: "file.svg"))
    var plot: String?

    @Option(name: .long, help: ArgumentHelp(
        "The policy to draw with --plot, by name as the table shows it (such as bounded(50m)) or kind (such as bounded); default the last policy.",
        valueName: "name"))
    var plotPolicy: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Corpus mode: one line per track (each policy's reports and ratio to the optimum), then totals, median and worst ratios over all tracks, each half of the split and each mode (default policies: dead-reckoning, bounded, optimum)."))
    var summary = false

    @Option(name: .long, help: ArgumentHelp(
        "With --summary, group the tracks after 'all' by dataset or by mode (from the manifest; mode from the file name without one) instead of by half and mode.",
        valueName: "dataset|mode"))
    var groupBy: CorpusSummary.GroupBy?

    @Option(name: .long, help: ArgumentHelp(
        "The corpus manifest naming each track's dataset and mode (a MANIFEST.md table: | file | source repo @ commit : path | licence | mode | …); default MANIFEST.md in the folder named as a track.",
        valueName: "file.md"))
    var manifest: String?

    @Flag(name: .long, help: ArgumentHelp(
        "With --summary: for each dataset, choose among the bounded variants that ran the one with the fewest reports on the other datasets (a variant replaces the policy as documented only when it needs more than √n fewer), measure it on the one left out, and report the left-out totals per mode, and each rule's effect on left-out data."))
    var leaveOneDatasetOut = false

    @Option(name: .long, help: ArgumentHelp(
        "Run bounded without these of its rules (comma-separated: \(BoundedPolicy.Rule.allCases.map(\.rawValue).joined(separator: ", "))), to measure what they are worth.",
        valueName: "rules"))
    var without: String?

    @Flag(name: .long, help: ArgumentHelp(
        "Also run bounded without each of its rules in turn (after any --without), one variant per rule."))
    var ablate = false

    @Flag(name: .long, help: "Log every skipped input line or point on standard error.")
    var verbose = false

    @Argument(help: ArgumentHelp(
        "The recorded tracks to replay: GPX or NMEA files, folders (their .gpx, .nmea, .nma, .log and .txt files) or quoted glob patterns.",
        valueName: "track"))
    var tracks: [String]

    func validate() throws {
        try policies.validate()
        guard !tracks.isEmpty else { throw ValidationError("Name at least one track file to replay.") }
        if summary, plot != nil || reports != nil {
            throw ValidationError("--summary prints totals only; run without it for --reports or --plot.")
        }
        if !summary, groupBy != nil || leaveOneDatasetOut {
            throw ValidationError("--group-by and --leave-one-dataset-out summarise a corpus; add --summary.")
        }
        _ = try withoutRules()
    }

    func run() throws {
        let logger = LoggingOptions.bootstrap(label: "whereabouts-eval", level: verbose ? .debug : .error)
        var settings = try policies.settings()
        settings.bounded.without = try withoutRules()
        let filter = try policies.filterSettings()
        var (kinds, listOptimum) = try policies.evaluationKinds()
        if summary, policies.policy == nil { kinds = [.deadReckoning, .bounded] }
        let epsilons = try policies.epsilons()
        let optimum = epsilons.map { epsilon in
            var parameters = settings.deadReckoning
            parameters.epsilon = epsilon
            return parameters
        }
        let paths = try TrackPaths.expand(tracks)
        let progress = ProgressBar()
        let manifest = try loadManifest(paths: paths)
        var made = settings.makePolicies(kinds, epsilons: epsilons)
        if ablate, kinds.contains(.bounded) {
            for rule in BoundedPolicy.Rule.allCases where !settings.bounded.without.contains(rule) {
                var variant = settings
                variant.bounded.without.insert(rule)
                made += variant.makePolicies([.bounded], epsilons: epsilons)
            }
        }

        var evaluations: [TrackEvaluation] = []
        var rows: [CorpusSummary.Row] = []
        for (number, path) in paths.enumerated() {
            let loaded = try TrackLoader.load(path: path, logger: logger)
            let name = URL(fileURLWithPath: path).lastPathComponent
            let evaluation = TrackEvaluation.evaluate(
                name: name,
                fixes: loaded.fixes,
                sourceRejections: loaded.rejections,
                filter: filter,
                policies: made,
                optimum: optimum,
                listOptimum: listOptimum,
                evaluator: heartbeat.evaluator()
            ) { done, total in
                if summary {
                    progress.update(label: name, done: number, total: paths.count, unit: "tracks")
                } else {
                    progress.update(label: path, done: done, total: total, unit: "runs")
                }
            }
            if summary {
                rows.append(CorpusSummary.row(evaluation, entry: manifest?.manifest[name]))
                continue
            }
            progress.finish()
            evaluations.append(evaluation)
            if format == .table { print(EvaluationTable.render(evaluation)) }
        }
        progress.finish()
        if summary {
            var corpus = CorpusSummary(rows: rows, groupBy: groupBy)
            if leaveOneDatasetOut { corpus.leaveOneDatasetOut = LeaveOneDatasetOut.evaluate(rows) }
            print(format == .json ? try corpus.encoded() : CorpusSummaryTable.render(corpus), terminator: "")
            return
        }
        if format == .json { print(try EvaluationJSON(evaluations).encoded(), terminator: "") }
        for evaluation in evaluations {
            if let reports {
                try write(ReportsCSV.render(evaluation), to: outputPath(reports, for: evaluation, count: paths.count))
            }
            if let plot {
                try writePlot(of: evaluation, to: outputPath(plot, for: evaluation, count: paths.count))
            }
        }
    }

    /// The rules `--without` names (none without the flag).
    func withoutRules() throws -> Set<BoundedPolicy.Rule> {
        guard let without else { return [] }
        do {
            return try BoundedPolicy.Rule.parseList(without)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The manifest `--manifest` names, else MANIFEST.md in a folder named as a track; required
    /// (and every track must be in it) for `--group-by dataset` and `--leave-one-dataset-out`.
    func loadManifest(paths: [String]) throws -> (path: String, manifest: CorpusManifest)? {
        let needed = groupBy == .dataset || leaveOneDatasetOut
        var path = manifest
        if path == nil {
            path = tracks.lazy.compactMap { argument -> String? in
                var isDirectory: ObjCBool = false
                let candidate = URL(fileURLWithPath: argument).appendingPathComponent("MANIFEST.md").path
                guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue,
                      FileManager.default.fileExists(atPath: candidate) else { return nil }
                return candidate
            }.first
        }
        guard let path else {
            if needed { throw ValidationError("--group-by dataset and --leave-one-dataset-out need a manifest; give one with --manifest.") }
            return nil
        }
        do {
            let loaded = try CorpusManifest(contentsOf: path)
            if needed, let missing = paths.first(where: { loaded[URL(fileURLWithPath: $0).lastPathComponent] == nil }) {
                throw CorpusManifestError.unlisted(track: missing, manifest: path)
            }
            return (path, loaded)
        } catch let error as CorpusManifestError {
            // A folder's MANIFEST.md that is not a manifest is only an error when one is needed.
            if needed || manifest != nil { throw ValidationError(error.description) }
            return nil
        }
    }

    /// `path` itself for a single track, else `path` with the track's base name before the extension.
    func outputPath(_ path: String, for evaluation: TrackEvaluation, count: Int) -> String {
        guard count > 1 else { return path }
        let url = URL(fileURLWithPath: path)
        let base = URL(fileURLWithPath: evaluation.name).deletingPathExtension().lastPathComponent
        return url.deletingPathExtension().path + "-" + base + (url.pathExtension.isEmpty ? "" : "." + url.pathExtension)
    }

    func writePlot(of evaluation: TrackEvaluation, to path: String) throws {
        let wanted = plotPolicy?.lowercased()
        let chosen = wanted.map { name in
            evaluation.runs.first { $0.evaluation.policy.lowercased() == name }
                ?? evaluation.runs.first { $0.evaluation.policy.lowercased().hasPrefix(name) }
        } ?? evaluation.runs.last
        guard let run = chosen else {
            throw ValidationError("No policy named '\(plotPolicy ?? "")' ran; use one of \(evaluation.runs.map(\.evaluation.policy).joined(separator: ", ")).")
        }
        try write(SVGPlot.render(track: evaluation.track, run: run, title: "\(evaluation.name) \(run.evaluation.policy)"), to: path)
    }

    func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot write \(path): \(error.localizedDescription)")
        }
    }
}

extension CorpusSummary.GroupBy: ExpressibleByArgument {}
