#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The exit status of a Whereabouts command whose command line (or config file) was invalid.
///
/// Whereabouts follows the common Unix convention (`grep`, `curl`, `mosquitto_sub`) of exit status
/// 2 for usage errors, so that scripts and systemd can tell "fix the configuration" from a runtime
/// failure (status 1). ArgumentParser would otherwise use `EX_USAGE` (64).
let usageErrorExitStatus: Int32 = 2

extension ParsableCommand {
    /// Parses the process's arguments and runs the chosen command, like ArgumentParser's `main()`,
    /// except that an invalid command line exits with ``usageErrorExitStatus`` after printing the
    /// error and the usage.
    package static func mainWithUsageExitStatus() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exitReporting(error)
        }
    }

    /// Exits the process for `error`: status 2 for an invalid command line, ArgumentParser's
    /// status otherwise (0 for `--help` and `--version`).
    static func exitReporting(_ error: any Error) -> Never {
        if exitCode(for: error) == .validationFailure {
            _ = Array((fullMessage(for: error) + "\n").utf8).withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            exit(withError: ExitCode(usageErrorExitStatus))
        }
        exit(withError: error)
    }
}

extension AsyncParsableCommand {
    /// Parses the process's arguments and runs the chosen command, like ArgumentParser's `main()`,
    /// except that an invalid command line exits with ``usageErrorExitStatus`` after printing the
    /// error and the usage.
    ///
    /// - Parameter prepare: Rewrites the arguments before parsing (for example, expands a config
    ///   file into arguments); a `ValidationError` it throws is a usage error too.
    package static func mainWithUsageExitStatus(
        preparingArguments prepare: @Sendable ([String]) throws -> [String] = { $0 }
    ) async {
        do {
            var command = try parseAsRoot(try prepare(Array(CommandLine.arguments.dropFirst())))
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exitReporting(error)
        }
    }
}
