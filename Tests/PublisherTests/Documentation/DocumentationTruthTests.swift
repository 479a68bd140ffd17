import Foundation
import Testing
import WhereaboutsTestSupport

/// The documentation (docs/*.md, README.md, BENCHMARKS.md) against the code, on the real files and
/// the real built programs: every `--flag` shown for whereabouts-pub, whereabouts-sub (per
/// subcommand) or whereabouts-eval is in that program's `--help`, every `whereabouts_...` metric
/// is registered in Sources, every repository path and Swift file cited exists, every test suite
/// or test cited as proof exists in Tests, and every `Type.member` cited of one of our types names
/// a member that exists. Every YAML block of the docs and every examples/*.yaml is read by the
/// program that reads such a file (DocumentationYAMLKeys.swift), and the keys
/// examples/publisher.yaml sets have --help's defaults (DocumentationExampleDefaults.swift).
/// A failure names the file, the line and what is wrong.
///
/// It lives in PublisherTests because that target already runs the built programs and reads
/// repository files; whereabouts-sub is found beside the test binary like SubscriberTests does.
@Suite("The documentation matches the code")
struct DocumentationTruthTests {
    // MARK: Lists

    /// Flags the docs show for programs that are not ours, keyed by flag, valued by the program.
    /// A bare `--flag` in a code span is checked against our three programs' `--help`, the flags
    /// the scripts in scripts/ and broker/ parse, the benchmarks' options, and this list.
    static let flagsOfOtherPrograms: [String: String] = [
        "--flag": "docs/policies.md's table header (a placeholder, not a flag)",
        "--host-resolver-rules": "Chromium",
        "--network": "docker run",
        "--icf": "lld",
        "--gc-sections": "lld",
    ]

    /// Test suites the docs cite from an experiment not kept (docs/policies.md: "branch `policy`,
    /// commit efdcd9c, with `TrackGapTests`"), with the commit and path that hold them; checked
    /// with git when the repository is a git checkout.
    static let testsOfExperimentsNotKept: [String: (commit: String, path: String)] = [
        "TrackGapTests": ("efdcd9c", "Tests/WhereaboutsCoreTests/TrackGapTests.swift"),
    ]

    // MARK: The checks

    @Test("Every --flag shown for whereabouts-pub, -sub and -eval is in that program's (and subcommand's) --help; a script's in the script")
    func flagsExist() async throws {
        var programs: [String: ProgramHelp] = [:]
        for name in Self.programNames {
            let executable = try #require(
                TestPaths.builtExecutable(named: name), "\(name) is not built: run swift build --build-tests first")
            programs[name] = try await Self.help(of: executable.path)
        }
        let ours = programs.values.reduce(into: Set<String>()) { $0.formUnion($1.allFlags) }
        #expect(programs["whereabouts-sub"]?.subcommands["acl"] != nil, "whereabouts-sub's subcommands not found in its --help")
        let elsewhere = try Self.flagsOfScriptsAndBenchmarks().union(Self.flagsOfOtherPrograms.keys)
        var mismatches: [Mismatch] = []
        var checked = 0
        for document in try Self.documents() {
            for segment in document.codeSegments() {
                for command in Self.commands(in: segment.text) {
                    let flags = Self.matches(Self.flagPattern, in: command.text)
                    if let program = command.program, let help = programs[program] {
                        guard let known = help.flags(after: command.arguments) else {
                            mismatches.append(Mismatch(document.path, segment.line, "\(program) has no subcommand \(command.arguments[0]): `\(command.text)`"))
                            continue
                        }
                        checked += flags.count
                        let named = command.arguments.first.flatMap { help.subcommands[$0] == nil ? nil : program + " " + $0 } ?? program
                        for flag in flags where !known.contains(flag) {
                            mismatches.append(Mismatch(document.path, segment.line, "\(named) has no \(flag) (not in its --help): `\(command.text)`"))
                        }
                    } else if let script = Self.repositoryScript(command.executable) {
                        // A script of ours (scripts/fuzz, broker/run-broker): it parses each flag it takes by name.
                        for flag in flags where !script.text.contains(flag) {
                            mismatches.append(Mismatch(document.path, segment.line, "\(script.path) does not take \(flag): `\(command.text)`"))
                        }
                    } else if command.isBareFlag && !segment.fenced {
                        for flag in flags where !(ours.contains(flag) || elsewhere.contains(flag)) {
                            // `--invite-...` names a family of flags.
                            if flag.hasSuffix("-") && ours.contains(where: { $0.hasPrefix(flag) }) { continue }
                            mismatches.append(Mismatch(document.path, segment.line, "\(flag) is in no program's --help (whereabouts-pub, -sub, -eval), no script's and no benchmark's"))
                        }
                    }
                }
            }
        }
        // Not vacuous: the docs show well over a hundred flags in commands of our programs.
        #expect(checked > 100, "only \(checked) flags of whereabouts-pub, -sub and -eval found in the docs' commands")
        Self.report(mismatches)
    }

    @Test("Every whereabouts_... metric the docs name is registered in Sources")
    func metricsRegistered() async throws {
        let (registered, mismatches) = try await OffPool.run { () throws -> (Set<String>, [Mismatch]) in
            let registered = try Self.metricNamesInSources()
            var mismatches: [Mismatch] = []
            for document in try Self.documents() {
                for (index, line) in document.lines.enumerated() {
                    for name in Self.matches(Self.metricPattern, in: line) {
                        let known: Bool
                        if name.hasSuffix("_") {  // `whereabouts_history_*`: a family
                            known = registered.contains { $0.hasPrefix(name) }
                        } else {
                            known = registered.contains(name) || ["_bucket", "_sum", "_count"].contains {
                                name.hasSuffix($0) && registered.contains(String(name.dropLast($0.count)))
                            }
                        }
                        if !known { mismatches.append(Mismatch(document.path, index + 1, "metric \(name) is registered nowhere in Sources")) }
                    }
                }
            }
            return (registered, mismatches)
        }
        #expect(registered.count > 20, "only \(registered.count) metric names found in Sources")
        Self.report(mismatches)
    }

    @Test("Every repository path and Swift file the docs cite exists")
    func pathsExist() async throws {
        let (files, mismatches) = try await OffPool.run { () throws -> ([String], [Mismatch]) in
            let files = try Self.repositoryFiles()
            var mismatches: [Mismatch] = []
            for document in try Self.documents() {
                for (index, line) in document.lines.enumerated() {
                    for match in Self.captures(Self.pathPattern, in: line) where match[0] == nil {  // not another repository's
                        guard let raw = match[1] else { continue }
                        let path = Self.trimmed(raw)
                        if !Self.exists(path, in: files) {
                            mismatches.append(Mismatch(document.path, index + 1, "\(path) does not exist"))
                        }
                    }
                    for raw in Self.matches(Self.swiftFilePattern, in: line) where !Self.pathRoots.contains(where: { raw.hasPrefix($0 + "/") }) {
                        if !files.contains(where: { $0 == raw || $0.hasSuffix("/" + raw) }) {
                            mismatches.append(Mismatch(document.path, index + 1, "no file \(raw) in the repository"))
                        }
                    }
                }
            }
            return (files, mismatches)
        }
        #expect(files.contains("Sources/Subscriber/SubscriberApp.swift") && !files.contains { $0.hasPrefix(".build") })
        Self.report(mismatches)
    }

    @Test("Every test suite and test the docs cite exists in Tests")
    func citedTestsExist() async throws {
        let (foundItself, mismatches) = try await OffPool.run { () throws -> (Bool, [Mismatch]) in
            let tests = try Self.testSources()
            var mismatches: [Mismatch] = []
            for document in try Self.documents() {
                for (index, line) in document.lines.enumerated() {
                    for match in Self.captures(Self.testPattern, in: line) {
                        guard let suite = match[0] else { continue }
                        let test = match[1].flatMap { $0 == "swift" || $0 == "md" ? nil : $0 }  // a file name, not a test
                        if let kept = Self.testsOfExperimentsNotKept[suite] {
                            if let held = Self.gitHolds(kept.commit, kept.path), !held {
                                mismatches.append(Mismatch(document.path, index + 1, "\(suite): commit \(kept.commit) holds no \(kept.path)"))
                            }
                            continue
                        }
                        let isTarget = tests.targets.contains(suite)
                        let files = isTarget ? tests.files.filter { $0.path.hasPrefix("Tests/\(suite)/") } : tests.declaring(suite)
                        guard !files.isEmpty else {
                            mismatches.append(Mismatch(document.path, index + 1, "no test suite or test target \(suite) in Tests"))
                            continue
                        }
                        guard let test else { continue }
                        let found = files.contains { file in
                            Self.declares(test, in: file.text, kinds: ["func", "struct", "class", "enum", "actor", "extension"])
                        } || (isTarget && FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Tests/\(suite)/\(test)").path))
                        if !found { mismatches.append(Mismatch(document.path, index + 1, "\(suite) has no test \(test)")) }
                    }
                }
            }
            return (!tests.declaring("DocumentationTruthTests").isEmpty, mismatches)
        }
        #expect(foundItself, "this suite's own declaration not found in Tests")
        Self.report(mismatches)
    }

    @Test("Every `Type.member` the docs cite, of a type declared here, names a member that exists")
    func citedMembersExist() async throws {
        let (checked, mismatches) = try await OffPool.run { () throws -> (Int, [Mismatch]) in
            var types: Set<String> = [], members: Set<String> = []
            for file in try Self.repositoryFiles() where file.hasSuffix(".swift") {
                let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
                types.formUnion(Self.captures(Self.typeDeclarationPattern, in: text).compactMap { $0[0] })
                members.formUnion(Self.captures(Self.memberDeclarationPattern, in: text).compactMap { $0[0] })
                for list in Self.captures(Self.caseListPattern, in: text).compactMap({ $0[0] }) {  // `case a, b(Int)`
                    members.formUnion(Self.matches("[A-Za-z_][A-Za-z0-9_]*", in: list))
                }
            }
            var mismatches: [Mismatch] = []
            var checked = 0
            for document in try Self.documents() {
                for (index, line) in document.lines.enumerated() {
                    for match in Self.captures(Self.memberCitationPattern, in: line) {
                        guard let type = match[0], let member = match[1], types.contains(type), member != "swift" else { continue }
                        checked += 1
                        if !members.contains(member) {
                            mismatches.append(Mismatch(document.path, index + 1, "\(type).\(member): no member \(member) is declared anywhere in the code"))
                        }
                    }
                }
            }
            return (checked, mismatches)
        }
        #expect(checked > 50, "only \(checked) `Type.member` citations of our types found in the docs")
        Self.report(mismatches)
    }

    // MARK: What a mismatch is and how it is reported

    struct Mismatch: CustomStringConvertible, Sendable {
        var file: String, line: Int, problem: String
        init(_ file: String, _ line: Int, _ problem: String) {
            self.file = file
            self.line = line
            self.problem = problem
        }
        var description: String { "\(file):\(line): \(problem)" }
    }

    static func report(_ mismatches: [Mismatch], sourceLocation: SourceLocation = #_sourceLocation) {
        for mismatch in mismatches {
            Issue.record("\(mismatch)", sourceLocation: sourceLocation)
        }
    }

    // MARK: The documents

    static let programNames = ["whereabouts-pub", "whereabouts-sub", "whereabouts-eval"]
    static let root = TestPaths.packageRoot
    static let pathRoots = ["Sources", "Tests", "scripts", "broker", "examples", "Benchmarks", "Fuzz", "docs"]

    struct Document {
        var path: String
        var lines: [String]

        /// Each fenced code block: its language tag (lowercased, empty when none), the 1-based
        /// line of its first content line, the indentation of its opening fence, and its lines.
        func fencedBlocks() -> [(language: String, line: Int, indent: Int, lines: [String])] {
            var blocks: [(language: String, line: Int, indent: Int, lines: [String])] = []
            var open: (language: String, line: Int, indent: Int, lines: [String])?
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("```") else {
                    open?.lines.append(line)
                    continue
                }
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased()
                    open = (language, index + 2, line.prefix { $0 == " " }.count, [])
                }
            }
            return blocks
        }

        /// The lines of fenced code blocks (a line ending in `\` joined with the next) and the
        /// inline code spans of the text (a span may run over a line break), each with the line it starts on.
        func codeSegments() -> [(line: Int, text: String, fenced: Bool)] {
            var segments: [(line: Int, text: String, fenced: Bool)] = []
            var fenced = false
            var pending: (line: Int, text: String)?
            for (index, line) in lines.enumerated() {
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                    fenced.toggle()
                    pending = nil
                    continue
                }
                let text = pending.map { $0.text + " " + line } ?? line
                let start = pending?.line ?? index + 1
                if fenced {
                    if text.hasSuffix("\\") {
                        pending = (start, String(text.dropLast()))
                    } else {
                        segments.append((start, text, true))
                        pending = nil
                    }
                } else if text.filter({ $0 == "`" }).count % 2 == 1 {
                    pending = (start, text)  // a code span continues on the next line
                } else {
                    for span in DocumentationTruthTests.matches(DocumentationTruthTests.codeSpanPattern, in: text) {
                        segments.append((start, String(span.dropFirst().dropLast()), false))
                    }
                    pending = nil
                }
            }
            return segments
        }
    }

    static func documents() throws -> [Document] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (docs + ["README.md", "BENCHMARKS.md"]).map { path in
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            return Document(path: path, lines: text.components(separatedBy: "\n"))
        }
    }

    // MARK: Commands and flags

    struct Command {
        var text: String
        /// The program it runs, when it is one of ours.
        var program: String?
        /// A span that is only flags (`--outbox-max 100`), without the program's name.
        var isBareFlag: Bool
        /// The words after the program's name.
        var arguments: [String]
        /// The program as written (`scripts/fuzz`, `./broker/run-broker`, `whereabouts-pub`).
        var executable: String
    }

    /// The commands of a code segment: split at pipes, `&&`, `;` and `$(`, comments dropped, and
    /// leading environment assignments, `sudo`, `exec` and `nice -n N` skipped.
    static func commands(in text: String) -> [Command] {
        var text = text
        if let comment = text.range(of: " #") { text = String(text[..<comment.lowerBound]) }
        return text.components(separatedBy: CharacterSet(charactersIn: "|;")).flatMap { $0.components(separatedBy: "&&") }
            .flatMap { $0.components(separatedBy: "$(") }
            .compactMap { part in
                var words = part.split(separator: " ").map(String.init)
                while let first = words.first,
                      ["sudo", "exec", "nice", "-n", "$", "time"].contains(first) || Int(first) != nil
                        || first.range(of: "^[A-Z_][A-Z0-9_]*=", options: .regularExpression) != nil {
                    words.removeFirst()
                }
                guard let first = words.first else { return nil }
                let base = first.split(separator: "/").last.map(String.init) ?? first
                let trimmedPart = part.trimmingCharacters(in: .whitespaces)
                return Command(
                    text: trimmedPart, program: programNames.contains(base) ? base : nil, isBareFlag: first.hasPrefix("--"),
                    arguments: Array(words.dropFirst()), executable: first)
            }
    }

    /// What a program's `--help-hidden` lists: its own flags and each subcommand's.
    struct ProgramHelp {
        var flags: Set<String> = []
        var subcommands: [String: Set<String>] = [:]
        /// The subcommand that runs when none is named (`run (default)`).
        var defaultSubcommand: String?

        var allFlags: Set<String> { subcommands.values.reduce(into: flags) { $0.formUnion($1) } }

        /// The flags a command line may use: those of the subcommand it names (its first word,
        /// when that is a lower-case word), else the default subcommand's; `nil` when it names a
        /// subcommand the program does not have.
        func flags(after arguments: [String]) -> Set<String>? {
            guard !subcommands.isEmpty else { return flags }
            if let first = arguments.first, first.range(of: "^[a-z][a-z0-9-]*$", options: .regularExpression) != nil {
                if first == "help" { return allFlags }
                return subcommands[first].map { $0.union(flags) }
            }
            return flags.union(defaultSubcommand.flatMap { subcommands[$0] } ?? [])
        }
    }

    static func help(of executable: String) async throws -> ProgramHelp {
        let help = try await ToolRun.run(executable, ["--help-hidden"])
        #expect(help.status == 0, "\(executable) --help-hidden exited with \(help.status): \(help.stderr)")
        // Plus what ArgumentParser gives every command without listing it.
        var program = ProgramHelp(flags: Set(matches(flagPattern, in: help.stdout)).union(["--help-hidden", "--generate-completion-script"]))
        var inSubcommands = false
        for line in help.stdout.components(separatedBy: "\n") {
            if line.hasPrefix("SUBCOMMANDS:") { inSubcommands = true; continue }
            guard inSubcommands else { continue }
            if !line.isEmpty && !line.hasPrefix(" ") { inSubcommands = false; continue }
            guard let name = captures(subcommandPattern, in: line).first?[0] else { continue }
            if line.contains("(default)") { program.defaultSubcommand = name }
            let subcommand = try await ToolRun.run(executable, [name, "--help-hidden"])
            #expect(subcommand.status == 0, "\(executable) \(name) --help-hidden exited with \(subcommand.status)")
            program.subcommands[name] = Set(matches(flagPattern, in: subcommand.stdout))
        }
        return program
    }

    /// The text of a script of this repository (under scripts/ or broker/) that a command runs.
    static func repositoryScript(_ executable: String) -> (path: String, text: String)? {
        let path = executable.hasPrefix("./") ? String(executable.dropFirst(2)) : executable
        guard path.hasPrefix("scripts/") || path.hasPrefix("broker/"),
              let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { return nil }
        return (path, text)
    }

    /// Flags the shell scripts in scripts/ and broker/ parse, and the benchmarks' options
    /// (ArgumentParser's `@Option var killNodeRuns` is `--kill-node-runs`).
    static func flagsOfScriptsAndBenchmarks() throws -> Set<String> {
        var flags: Set<String> = []
        for file in try repositoryFiles() where file.hasPrefix("scripts/") || file.hasPrefix("broker/") {
            if let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) {
                flags.formUnion(matches(flagPattern, in: text))
            }
        }
        for file in try repositoryFiles() where file.hasPrefix("Benchmarks/") && file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            flags.formUnion(matches(flagPattern, in: text))
            for name in captures(optionPattern, in: text).compactMap({ $0[0] }) {
                flags.insert("--" + name.replacingOccurrences(of: "([a-z0-9])([A-Z])", with: "$1-$2", options: .regularExpression).lowercased())
            }
        }
        return flags
    }

    // MARK: Metrics, files and tests in the repository

    /// Every `whereabouts_...` name on a line of code (not a comment) in Sources and Benchmarks.
    static func metricNamesInSources() throws -> Set<String> {
        var names: Set<String> = []
        for file in try repositoryFiles() where file.hasPrefix("Sources/") || file.hasPrefix("Benchmarks/") {
            guard [".swift", ".c", ".h"].contains(where: { file.hasSuffix($0) }) else { continue }
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for line in text.components(separatedBy: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                names.formUnion(matches(metricPattern, in: line))
            }
        }
        return names
    }

    /// Every file of the repository, relative to its root, without build folders and hidden ones.
    static func repositoryFiles() throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") { enumerator.skipDescendants(); continue }
            files.append(path)
        }
        return files
    }

    /// Whether a cited path exists; `*` matches within one folder (`examples/*.yaml`).
    static func exists(_ path: String, in files: [String]) -> Bool {
        guard path.contains("*") else {
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
        }
        let pattern = "^" + NSRegularExpression.escapedPattern(for: path).replacingOccurrences(of: "\\*", with: "[^/]*") + "/?$"
        return files.contains { $0.range(of: pattern, options: .regularExpression) != nil }
    }

    static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while let last = path.last, ".,:;)".contains(last) { path = path.dropLast() }
        return String(path)
    }

    struct TestSources {
        var files: [(path: String, text: String)]
        var targets: Set<String>
        func declaring(_ suite: String) -> [(path: String, text: String)] {
            files.filter { DocumentationTruthTests.declares(suite, in: $0.text, kinds: ["struct", "class", "enum", "actor", "extension"]) }
        }
    }

    static func testSources() throws -> TestSources {
        let testFiles = try repositoryFiles().filter { $0.hasPrefix("Tests/") && $0.hasSuffix(".swift") }
        let files = try testFiles.map { (path: $0, text: try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
        let targets = Set(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Tests").path))
        return TestSources(files: files, targets: targets)
    }

    /// Whether `commit` holds `path`, or `nil` when git or the history is not there to ask.
    static func gitHolds(_ commit: String, _ path: String) -> Bool? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/git"),
              let repository = try? ToolRun.runBlocking("/usr/bin/git", ["-C", root.path, "cat-file", "-e", commit]),
              repository.status == 0 else { return nil }
        return (try? ToolRun.runBlocking("/usr/bin/git", ["-C", root.path, "cat-file", "-e", "\(commit):\(path)"]))?.status == 0
    }

    static func declares(_ name: String, in text: String, kinds: [String]) -> Bool {
        text.range(of: "\\b(\(kinds.joined(separator: "|")))\\s+\(name)\\b", options: .regularExpression) != nil
    }

    // MARK: Patterns

    static let flagPattern = "(?<![A-Za-z0-9_-])--[a-z][a-z0-9-]*"
    static let codeSpanPattern = "`[^`]+`"
    static let metricPattern = "(?<![A-Za-z0-9_])whereabouts_[a-z0-9_]+"
    /// A repository path, unless it follows another repository's name ("owntracks/booklet
    /// `docs/tech/json.md`"), which the first group captures.
    static let pathPattern =
        "(?:(?<![A-Za-z0-9_./-])(?!(?:Sources|Tests|scripts|broker|examples|Benchmarks|Fuzz|docs)/)([A-Za-z0-9-]+/[A-Za-z0-9_.-]+):? `?)?"
        + "(?<![A-Za-z0-9_./-])((?:Sources|Tests|scripts|broker|examples|Benchmarks|Fuzz|docs)/[A-Za-z0-9_./+*-]*)"
    static let swiftFilePattern = "(?<![A-Za-z0-9_./-])[A-Za-z0-9_+/-]+\\.swift\\b"
    static let testPattern = "(?<![A-Za-z0-9_])([A-Z][A-Za-z0-9]*Tests)(?:[/.]([A-Za-z_][A-Za-z0-9_]*))?"
    static let typeDeclarationPattern = "\\b(?:struct|class|enum|actor|protocol|typealias)\\s+([A-Za-z_][A-Za-z0-9_]*)"
    static let memberDeclarationPattern = "\\b(?:func|var|let|case)\\s+`?([A-Za-z_][A-Za-z0-9_]*)"
    static let caseListPattern = "\\bcase\\s+([^\\n:=]*)"
    static let memberCitationPattern = "`([A-Z][A-Za-z0-9]+)\\.([a-z][A-Za-z0-9]*)"
    static let subcommandPattern = "^  ([a-z][a-z0-9-]*)\\b"
    static let optionPattern = "@(?:Option|Flag)\\b[\\s\\S]*?\\bvar\\s+([A-Za-z][A-Za-z0-9]*)"

    static func matches(_ pattern: String, in text: String) -> [String] {
        captures(pattern, in: text, whole: true).compactMap { $0[0] }
    }

    /// The capture groups of every match (or the whole match), `nil` where a group did not take part.
    static func captures(_ pattern: String, in text: String, whole: Bool = false) -> [[String?]] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else {
            Issue.record("bad pattern \(pattern)")
            return []
        }
        let nsText = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: nsText.length)).map { match in
            let groups = whole ? [0] : Array(1..<match.numberOfRanges)
            return groups.map { group in
                let range = match.range(at: group)
                return range.location == NSNotFound ? nil : nsText.substring(with: range)
            }
        }
    }
}
