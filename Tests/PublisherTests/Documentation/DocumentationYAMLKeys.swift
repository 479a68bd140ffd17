import Foundation
import Publisher
import Testing
import WhereaboutsTestSupport

/// The YAML the docs and examples show, read by the programs' own readers: a config file by
/// `whereabouts-pub --config` or `whereabouts-sub --config` (the built programs, with the keys
/// each accepts), a circles file by `whereabouts-sub acl --circles`, a users file by
/// `whereabouts-sub passwd --users`, a places file by `PlacesFile`, the reader behind
/// `whereabouts-pub --places`. No list of keys is copied here: a key a program stops accepting, or
/// a misspelt one in a doc, fails the check with the document, line and the program's own message.
extension DocumentationTruthTests {
    @Test("Every YAML block of the docs and every examples/*.yaml file is accepted by the program that reads such a file: config keys and values, circles, places and users files")
    func yamlExamplesAccepted() async throws {
        let programs = try YAMLPrograms()
        var mismatches: [Mismatch] = []
        var checked: [YAMLReader: Int] = [:]
        for example in try Self.yamlExamples() {
            guard let reader = example.reader else {
                mismatches.append(Mismatch(example.path, example.line, """
                    a YAML block no program of ours is known to read: show a whole circles, places or users file, \
                    or name the program of a config file in a first comment (`# whereabouts-pub --config`)
                    """))
                continue
            }
            checked[reader, default: 0] += 1
            mismatches += try await Self.check(example, programs: programs)
        }
        // Not vacuous: the docs and examples show each kind of file at least once.
        for reader in YAMLReader.allCases {
            #expect(checked[reader, default: 0] > 0, "no YAML block or example of \(reader.rawValue) found")
        }
        #expect(checked.values.reduce(0, +) >= 10, "only \(checked.values.reduce(0, +)) YAML blocks and examples found")
        Self.report(mismatches)
    }

    @Test("The YAML check refuses a misspelt key of each file the programs read, naming the document's line", arguments: [
        (YAMLReader.publisherConfig, "source: gpx:/x.gpx\nuser: alice\npasword-file: /x\n", "pasword-file", 3),
        (.publisherConfig, "source: gpx:/x.gpx\n# outbox-maxx: 5\n", "outbox-maxx", 2),  // a commented-out key
        (.publisherConfig, "source: gpx:/x.gpx\nqos: 7\n", "--qos", 1),  // a value only the argument parser refuses
        (.subscriberConfig, "circles: /x\nhttp-prt: 8080\n", "http-prt", 2),
        (.circlesFile, "circles:\n  - id: family\n    members:\n      - user: alice\n        device: phone\n        colour: \"#e6194b\"\n", "colour", 6),
        (.placesFile, "places:\n  - name: Home\n    lat: 52.6\n    lon: -8.6\n    radius: 100\n    profileOnLeve: active\n", "profileOnLeve", 6),
        (.usersFile, "users:\n  bob:\n    password: \"$2b$12$...\"\n    admins: [family]\n", "admins", 1),
    ])
    func yamlCheckRefusesMisspeltKeys(reader: YAMLReader, text: String, key: String, line: Int) async throws {
        let example = YAMLExample(path: "docs/example.md", line: 10, text: text, reader: reader)
        let found = try await Self.check(example, programs: try YAMLPrograms())
        #expect(found.count == 1 && found[0].problem.contains(key), "\(found)")
        #expect(found.first?.line == example.documentLine(line), "\(found)")
    }

    // MARK: Reading an example as its program does

    /// The built programs that read the YAML files.
    struct YAMLPrograms {
        var publisher: String
        var subscriber: String

        init() throws {
            publisher = try #require(TestPaths.builtExecutable(named: "whereabouts-pub"), "whereabouts-pub is not built").path
            subscriber = try #require(TestPaths.builtExecutable(named: "whereabouts-sub"), "whereabouts-sub is not built").path
        }
    }

    /// What the example's reader refuses in it, each at the document's line the reader names.
    static func check(_ example: YAMLExample, programs: YAMLPrograms) async throws -> [Mismatch] {
        guard let reader = example.reader else { return [] }
        let directory = try TemporaryDirectory(prefix: "docs-yaml")
        switch reader {
        case .publisherConfig, .subscriberConfig:
            let program = reader == .publisherConfig ? programs.publisher : programs.subscriber
            var mismatches = try await checkConfig(example.text, of: example, program: program, in: directory)
            if let commented = example.commentedOutKeys {
                mismatches += try await checkConfig(commented, of: example, program: program, in: directory, what: " (its commented-out keys)")
            }
            return mismatches
        case .circlesFile:
            let file = try directory.write(example.text, to: "circles.yaml")
            // The reader reads each member's secret file (beside the circles file when relative).
            for secretFile in captures(secretFilePattern, in: example.text).compactMap({ $0[0] }) where !secretFile.hasPrefix("/") {
                try directory.write("documentation-check-secret\n", to: secretFile)
            }
            let result = try await runBounded(programs.subscriber, ["acl", "--circles", file])
            return result.status == 0 ? [] : [refusal(result, by: reader, of: example, file: file)]
        case .placesFile:
            do {
                _ = try PlacesFile.parse(example.text)
                return []
            } catch {
                return [located("\(reader.rawValue) refuses it: \(error.description)", of: example, file: nil)]
            }
        case .usersFile:
            // The docs show "$2b$12$..." for a hash; the reader takes only whole bcrypt hashes.
            let hash = "$2b$12$" + String(repeating: "C", count: 53)
            let text = example.text.replacingOccurrences(
                of: "\\$2[aby]\\$[0-9]{2}\\$\\.\\.\\.", with: NSRegularExpression.escapedTemplate(for: hash), options: .regularExpression)
            let file = try directory.write(text, to: "users.yaml")
            let result = try await runBounded(
                programs.subscriber, ["passwd", "--users", file, "--user", "documentation-check", "--cost", "4"],
                input: Data("documentation-check\n".utf8))
            return result.status == 0 ? [] : [refusal(result, by: reader, of: example, file: file)]
        }
    }

    /// A config file, twice: its keys and the kinds of their values, by the program's config
    /// reader (`--config FILE --help` exits 0 only when the reader takes every key); then its
    /// values, by the argument parser, in a run the command line stops at its first step (the
    /// publisher's outbox, the subscriber's circles file, both made unreachable).
    static func checkConfig(
        _ text: String, of example: YAMLExample, program: String, in directory: TemporaryDirectory, what: String = ""
    ) async throws -> [Mismatch] {
        let reader = example.reader ?? .publisherConfig
        let file = try directory.write(text, to: "config.yaml")
        let keys = try await runBounded(program, ["--config", file, "--help"])
        guard keys.status == 0 else { return [refusal(keys, by: reader, of: example, file: file, what: what)] }
        let stop = reader == .publisherConfig ? ["--outbox", "/proc/nonexistent/outbox.sqlite"] : ["--circles", "/nonexistent/circles.yaml"]
        let values = try await runBounded(program, ["--config", file] + stop)
        if values.status == 124 {
            return [Mismatch(example.path, example.line, "\(reader.rawValue)\(what) did not stop within 30 s at \(stop.joined(separator: " "))")]
        }
        let output = values.stdout + values.stderr
        guard argumentParserRefusals.contains(where: { output.contains($0) }) else { return [] }
        return [refusal(values, by: reader, of: example, file: file, what: what)]
    }

    /// A member's `secretFile: PATH` in a circles file.
    static let secretFilePattern = "\\bsecretFile:\\s*[\"']?([^\"'#\\s]+)"

    /// How the argument parser says it refuses an option or its value.
    static let argumentParserRefusals = ["Unknown option", "is invalid for '--", "Missing value for '--", "Unexpected argument"]

    /// The program's error, at the document's line it names.
    static func refusal(_ result: ToolRun.Output, by reader: YAMLReader, of example: YAMLExample, file: String, what: String = "") -> Mismatch {
        let output = result.stderr + result.stdout
        let error = output.components(separatedBy: "\n").first { $0.hasPrefix("Error:") }
            ?? output.components(separatedBy: "\n").first { !$0.isEmpty } ?? "exit status \(result.status)"
        return located("\(reader.rawValue) refuses it\(what): \(error)", of: example, file: file)
    }

    /// A message about a line of the example's text (`FILE:3:` or `line 3:`), at that line of its document.
    static func located(_ message: String, of example: YAMLExample, file: String?) -> Mismatch {
        var message = message
        var line = example.line
        let pattern = (file.map { NSRegularExpression.escapedPattern(for: $0) + ":|" } ?? "") + "\\bline "
        if let number = captures("(?:\(pattern))([0-9]+)", in: message).first?[0].flatMap({ Int($0) }) {
            line = example.documentLine(number)
        }
        if let file {  // the temporary file's name says nothing: the mismatch names the document's line
            message = message.replacingOccurrences(of: NSRegularExpression.escapedPattern(for: file) + ":[0-9]+: ", with: "", options: .regularExpression)
                .replacingOccurrences(of: file, with: "(this YAML)")
        }
        return Mismatch(example.path, line, message.replacingOccurrences(of: "Error: ", with: ""))
    }

    /// Runs a program for at most 30 s (exit status 124 when it had to be stopped).
    static func runBounded(_ program: String, _ arguments: [String], input: Data? = nil) async throws -> ToolRun.Output {
        try await ToolRun.run("/usr/bin/timeout", ["30", program] + arguments, input: input)
    }
}
