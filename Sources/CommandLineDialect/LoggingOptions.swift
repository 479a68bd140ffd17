import ArgumentParser
import Logging

/// `--log-level`, and the one way the three programs set up logging: every line to standard
/// error, at the chosen level, for every logger of the process.
package struct LoggingOptions: ParsableArguments, Sendable {
    /// Creates the options with their defaults (ArgumentParser fills them).
    package init() {}

    /// The level below which nothing is logged.
    @Option(help: "The log level: \(Logger.Level.valueList(conjunction: "or")). Positions are logged only at debug and below.")
    package var logLevel: Logger.Level = .info

    /// The config-file keys of these flags.
    package static let configKeys: [ConfigKey] = [.word("log-level", Logger.Level.self)]

    /// Sends every log line of this process to standard error at `--log-level`, and returns the
    /// program's logger. Call it once, at the start of `run()`.
    package func bootstrap(label: String) -> Logger {
        Self.bootstrap(label: label, level: logLevel)
    }

    /// Sends every log line of this process to standard error at `level`, and returns the
    /// program's logger (for a program whose level comes from another flag, such as
    /// `whereabouts-eval --verbose`). Call it once, at the start of `run()`.
    package static func bootstrap(label: String, level: Logger.Level) -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}

extension ExpressibleByArgument where Self: CaseIterable {
    /// The values a flag of this type takes, as a sentence's list: `a, b or c` (from `allCases`,
    /// spelled as the flag takes them), for help texts and error messages.
    package static func valueList(conjunction: String) -> String {
        let words = allValueStrings
        guard words.count > 1 else { return words.joined() }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + (words.last ?? "")
    }
}
