import Foundation
import Testing
import WhereaboutsTestSupport

/// docs/publisher.md says `examples/publisher.yaml` "lists every key with its default": every key
/// the example sets (not commented out) whose flag shows a default in `whereabouts-pub --help` has
/// that default, so a changed default makes the example fail here rather than mislead.
extension DocumentationTruthTests {
    @Test("examples/publisher.yaml gives each key it sets the default whereabouts-pub --help shows")
    func publisherExampleHasDefaults() async throws {
        let executable = try #require(TestPaths.builtExecutable(named: "whereabouts-pub"), "whereabouts-pub is not built")
        let help = try await ToolRun.run(executable.path, ["--help-hidden"])
        #expect(help.status == 0, "\(help.stderr)")
        let defaults = Self.helpDefaults(help.stdout)
        #expect(defaults["outbox-max"] == "100000" && defaults["retain"] == "--retain" && defaults["profile"] == "active", "\(defaults)")
        let path = "examples/publisher.yaml"
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        var mismatches: [Mismatch] = []
        var compared = 0
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            guard let match = Self.captures(Self.topLevelKeyPattern, in: line).first, let key = match[0],
                  let shown = defaults[key] else { continue }
            let value = (match[1] ?? "").components(separatedBy: " #")[0].trimmingCharacters(in: .whitespaces)
            compared += 1
            if !Self.isSameSetting(value, shown, key: key) {
                mismatches.append(Mismatch(path, index + 1, "\(key): \(value), but whereabouts-pub --help says the default is \(shown)"))
            }
        }
        #expect(compared > 15, "only \(compared) keys of \(path) have a default in --help")
        Self.report(mismatches)
    }

    /// Each long flag's default as `--help` shows it (`(default: 30.0)`, `(values: ...; default: info)`,
    /// `(default: --retain)` for a flag with a `--no-` form, `bounded in whereabouts-pub`).
    static func helpDefaults(_ help: String) -> [String: String] {
        var entries: [(flag: String, text: String)] = []
        for line in help.components(separatedBy: "\n") {
            if let flag = captures("^  (?:-[a-zA-Z], )?--([a-z][a-z0-9-]*)", in: line).first?[0] {
                entries.append((flag, line))
            } else if line.hasPrefix("      "), !entries.isEmpty {
                entries[entries.count - 1].text += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        var defaults: [String: String] = [:]
        for entry in entries {
            guard let shown = captures("[(;] ?default: ([^)]*)\\)", in: entry.text).last?[0] else { continue }
            // A flag both programs share may say each one's: "all six ... in whereabouts-eval, bounded in whereabouts-pub".
            defaults[entry.flag] = captures("([^ ,]+) in whereabouts-pub", in: shown).first?[0] ?? shown.trimmingCharacters(in: .whitespaces)
        }
        return defaults
    }

    /// Whether a config value sets what `--help` shows as the default: the same number, the same
    /// word, or `true`/`false` for a flag shown as `--key`/`--no-key`.
    static func isSameSetting(_ value: String, _ shown: String, key: String) -> Bool {
        if shown.hasPrefix("--") {
            switch value.lowercased() {
            case "true", "yes", "on": return shown == "--" + key
            case "false", "no", "off": return shown == "--no-" + key
            default: return false
            }
        }
        if let number = Double(value), let defaultNumber = Double(shown) { return number == defaultNumber }
        return value == shown
    }
}
