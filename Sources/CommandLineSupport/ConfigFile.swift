import SystemSupport
import CommandLineDialect
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore
import WhereaboutsYAML

/// A `whereabouts-pub` config file: a YAML mapping whose keys are the long command-line flags
/// without `--` (`broker: mqtt://host:1883`, `outbox-max: 5000`).
///
/// The file is turned into the equivalent command-line arguments, which are parsed before the real
/// command line, so a flag given on the command line overrides the file. Every key and value is
/// checked first; an unknown key or a value of the wrong kind is a ``ConfigFileError`` that names
/// the key and its line.
package struct ConfigFile: Sendable, Hashable {
    /// The arguments the file stands for, in file order.
    package var arguments: [String]

    /// Parses YAML text against the accepted keys.
    ///
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - path: The file's path, for error messages.
    ///   - keys: The keys the command accepts.
    package init(text: String, path: String, keys: [ConfigKey]) throws(ConfigFileError) {
        if let line = YAMLNesting.lineDeeperThanLimit(in: text) {
            throw .malformedYAML(
                path: path,
                reason: "line \(line) nests more than \(YAMLNesting.limit) levels deep; a config file is a flat mapping of keys to values."
            )
        }
        let root: YAMLNode?
        do {
            root = try YAMLDocument.parse(text)
        } catch {
            throw .malformedYAML(path: path, reason: "\(error).")
        }
        guard let root else { arguments = []; return }  // an empty file sets nothing
        guard case let .mapping(mapping, _) = root else {
            throw .notAMapping(path: path, line: root.mark.line)
        }
        let known = Dictionary(keys.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var arguments: [String] = []
        for pair in mapping {
            let (keyNode, valueNode) = (pair.key, pair.value)
            let line = keyNode.mark.line
            guard let key = keyNode.text, !key.isEmpty else {
                throw .unknownKey(path: path, key: Self.text(of: keyNode), line: line)
            }
            guard let kind = known[key] else {
                throw .unknownKey(path: path, key: key, line: line)
            }
            guard seen.insert(key).inserted else { throw .duplicateKey(path: path, key: key, line: line) }
            arguments += try Self.arguments(for: key, kind: kind, value: valueNode, path: path)
        }
        self.arguments = arguments
    }

    /// Reads and parses the file at `path`.
    package init(contentsOf path: String, keys: [ConfigKey]) throws(ConfigFileError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: fileErrorReason(error))
        }
        try self.init(text: text, path: path, keys: keys)
    }

    private static func arguments(
        for key: String, kind: ConfigValueKind, value node: YAMLNode, path: String
    ) throws(ConfigFileError) -> [String] {
        func invalid(_ expected: String) -> ConfigFileError {
            .invalidValue(path: path, key: key, line: node.mark.line, value: Self.text(of: node), expected: expected)
        }
        if case .sequence(let items, _) = node {
            guard case .numberList = kind else { throw invalid(Self.expectation(kind)) }
            var numbers: [String] = []
            for item in items {
                guard case .scalar(let scalar) = item, let number = scalar.double, number.isFinite else { throw invalid("a list of numbers") }
                numbers.append(scalar.text)
            }
            return ["--\(key)", numbers.joined(separator: ",")]
        }
        guard case .scalar(let scalar) = node, !scalar.isNull else {
            throw invalid(Self.expectation(kind))
        }
        let text = scalar.text
        switch kind {
        case .string:
            guard !text.isEmpty else { throw invalid("a non-empty string") }
        case .integer:
            // The flag gets the number in decimal, which is what the argument parser reads.
            guard let number = scalar.int else { throw invalid("a whole number") }
            return ["--\(key)", String(number)]
        case .number:
            guard let number = scalar.double, number.isFinite else { throw invalid("a number") }
        case .boolean:
            guard let flag = Self.flag(text) else { throw invalid("true or false") }
            return [flag ? "--\(key)" : "--no-\(key)"]
        case .flag:
            guard let flag = Self.flag(text) else { throw invalid("true or false") }
            return flag ? ["--\(key)"] : []
        case .numberOrWord(let words):
            let isNumber = scalar.double.map { $0.isFinite } ?? false
            guard isNumber || words.contains(text) else { throw invalid(Self.expectation(kind)) }
        case .word(let words):
            guard words.contains(text) else { throw invalid(Self.expectation(kind)) }
        case .numberList:
            let parts = text.split(separator: ",").map { $0.trimmingSpaces() }
            guard !parts.isEmpty, parts.allSatisfy({ Double($0)?.isFinite == true }) else {
                throw invalid("a list of numbers")
            }
        }
        return ["--\(key)", text]
    }

    private static func expectation(_ kind: ConfigValueKind) -> String {
        switch kind {
        case .string: "a string"
        case .integer: "a whole number"
        case .number: "a number"
        case .boolean, .flag: "true or false"
        case .numberOrWord(let words): "a number or " + words.joined(separator: " or ")
        case .word(let words): "one of " + words.joined(separator: ", ")
        case .numberList: "a list of numbers"
        }
    }

    /// A boolean value: `true`/`false`, and YAML 1.1's `yes`/`no`/`on`/`off`, in any case and
    /// quoted or not, as the config file has always accepted them (Yams read them so).
    private static func flag(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    private static func text(of node: YAMLNode) -> String {
        switch node {
        case .scalar(let scalar): scalar.text
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}

/// Why a config file was refused. Each message names the file, and the key and line when there is one.
package enum ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file is not valid YAML.
    case malformedYAML(path: String, reason: String)
    /// The top level is not a mapping of keys to values.
    case notAMapping(path: String, line: Int?)
    /// A key the command does not know.
    case unknownKey(path: String, key: String, line: Int?)
    /// The same key twice.
    case duplicateKey(path: String, key: String, line: Int?)
    /// A value of the wrong kind for its key.
    case invalidValue(path: String, key: String, line: Int?, value: String, expected: String)

    /// A sentence naming the file, line and key, and what to do.
    package var description: String {
        func at(_ path: String, _ line: Int?) -> String { line.map { "\(path):\($0)" } ?? path }
        switch self {
        case let .unreadable(path, reason):
            return "Cannot read the config file \(path): \(reason)."
        case let .malformedYAML(path, reason):
            return "The config file \(path) is not valid YAML: \(reason)"
        case let .notAMapping(path, line):
            return "\(at(path, line)): the config file must be a mapping of keys to values (key: value)."
        case let .unknownKey(path, key, line):
            return "\(at(path, line)): unknown key '\(key)'. Keys are the program's long flags (see --help) without the leading dashes."
        case let .duplicateKey(path, key, line):
            return "\(at(path, line)): the key '\(key)' is given twice."
        case let .invalidValue(path, key, line, value, expected):
            return "\(at(path, line)): the value '\(value)' of '\(key)' is invalid: expected \(expected)."
        }
    }
}
