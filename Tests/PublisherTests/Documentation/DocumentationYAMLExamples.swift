import Foundation

/// The YAML the documentation shows: every fenced ```yaml block of docs/*.md, README.md and
/// BENCHMARKS.md, and every examples/*.yaml file, each with the reader that takes such a file.
extension DocumentationTruthTests {
    /// The files our programs read as YAML, each with its own reader.
    enum YAMLReader: String, CaseIterable {
        /// `whereabouts-pub --config` (`ConfigFile` with `WhereaboutsPub.configKeys`).
        case publisherConfig = "whereabouts-pub --config"
        /// `whereabouts-sub --config` (`ConfigFile` with `RunCommand.configKeys`).
        case subscriberConfig = "whereabouts-sub --config"
        /// The subscriber's circles file (`CirclesFile.load`, also used by `acl` and `dynsec`).
        case circlesFile = "the circles file"
        /// The publisher's `--places` file (`PlacesFile.load`).
        case placesFile = "whereabouts-pub --places"
        /// The dashboard's `--users` file (`UsersFile.load`, also used by `passwd`).
        case usersFile = "the --users file"

        /// A config file's keys are long flags; the other files have keys of their own.
        var isConfigFile: Bool { self == .publisherConfig || self == .subscriberConfig }
    }

    /// One YAML text shown in a document or example file.
    struct YAMLExample {
        /// The document or example file that shows it.
        var path: String
        /// The line of `path` that holds the text's first line.
        var line: Int
        /// The YAML, without the indentation of the fence it sits in.
        var text: String
        /// Which program reads it; `nil` when neither its shape nor its document tells.
        var reader: YAMLReader?

        /// The line of `path` of the text's line `number` (1-based).
        func documentLine(_ number: Int) -> Int { line + number - 1 }

        /// The keys a config file shows commented out (`# replay-speed: 10`, an option the reader
        /// may switch on), uncommented in place: every other line is blank, so line numbers are the
        /// text's; a key commented out twice is kept once. `nil` when it shows none.
        var commentedOutKeys: String? {
            var seen: Set<String> = []
            let lines = text.components(separatedBy: "\n").map { line -> String in
                guard let match = DocumentationTruthTests.captures(DocumentationTruthTests.commentedKeyPattern, in: line).first,
                      let key = match[0], seen.insert(key).inserted else { return "" }
                return String(line.drop { $0 == "#" || $0 == " " })
            }
            return seen.isEmpty ? nil : lines.joined(separator: "\n")
        }
    }

    /// Config files shown in a document with no comment naming their program: the program that
    /// document is about.
    static let configReaderOfDocument: [String: YAMLReader] = [
        "docs/publisher.md": .publisherConfig,
        "docs/subscriber.md": .subscriberConfig,
        "docs/dashboard.md": .subscriberConfig,
    ]

    /// A commented-out config key: `# outbox: /var/lib/...`, not a sentence (`# Identity: the ...`).
    static let commentedKeyPattern = "^#\\s?([a-z][a-z0-9-]*):(?:\\s|$)"
    /// A key at the top level of a YAML text and the rest of its line.
    static let topLevelKeyPattern = "^([A-Za-z_][A-Za-z0-9_-]*):(.*)$"

    /// Every YAML block of the documents and every examples/*.yaml file.
    static func yamlExamples() throws -> [YAMLExample] {
        var examples: [YAMLExample] = []
        for document in try documents() {
            for block in document.fencedBlocks() where ["yaml", "yml"].contains(block.language) {
                let text = block.lines.map { dedented($0, by: block.indent) }.joined(separator: "\n")
                examples.append(YAMLExample(path: document.path, line: block.line, text: text, reader: reader(of: text, in: document.path)))
            }
        }
        let folder = root.appendingPathComponent("examples")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let path = "examples/" + name
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            examples.append(YAMLExample(path: path, line: 1, text: text, reader: reader(of: text, in: path)))
        }
        return examples
    }

    /// Which program reads a YAML text: a circles, places or users file by its one top-level key
    /// holding a list or mapping; else a config file of the program its leading comment names
    /// (`# whereabouts-pub config file`), or of the program its document is about.
    static func reader(of text: String, in path: String) -> YAMLReader? {
        let topLevel = text.components(separatedBy: "\n").compactMap { line -> (key: String, rest: String)? in
            guard let match = captures(topLevelKeyPattern, in: line).first, let key = match[0] else { return nil }
            let rest = (match[1] ?? "").components(separatedBy: " #")[0].trimmingCharacters(in: .whitespaces)
            return (key, rest)
        }
        if topLevel.count == 1, topLevel[0].rest.isEmpty {
            switch topLevel[0].key {
            case "circles": return .circlesFile
            case "places": return .placesFile
            case "users": return .usersFile
            default: break
            }
        }
        let leadingComments = text.components(separatedBy: "\n").prefix { $0.isEmpty || $0.hasPrefix("#") }
            .filter { captures(commentedKeyPattern, in: $0).isEmpty }.joined(separator: "\n")
        // The program named first: a comment may go on to cite the other one.
        let named = [YAMLReader.publisherConfig: "whereabouts-pub", .subscriberConfig: "whereabouts-sub"]
            .compactMap { reader, name in leadingComments.range(of: name).map { (reader, $0.lowerBound) } }
            .min { $0.1 < $1.1 }
        return named?.0 ?? configReaderOfDocument[path]
    }

    static func dedented(_ line: String, by indent: Int) -> String {
        String(line.dropFirst(min(indent, line.prefix { $0 == " " }.count)))
    }
}
