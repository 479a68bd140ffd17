import Foundation
import WhereaboutsCore
import Yams

/// Why a config file was refused. Each message names the file, and the key and line when there is one.
public enum ConfigFileError: Error, Sendable, Hashable, CustomStringConvertible {
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
    public var description: String {
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
