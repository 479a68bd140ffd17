import CommandLineDialect
import ArgumentParser

/// Expands `--config FILE` into the file's arguments, placed before the command line's own, so
/// that flags on the command line win. Both programs use it with their own ``ConfigKey`` lists.
package enum ConfigArguments {
    /// The arguments with the config file's (if `--config` names one) in front; `--config` itself
    /// is left for the command to accept. Throws a `ValidationError` naming the file, line and key.
    package static func expand(_ arguments: [String], keys: [ConfigKey]) throws -> [String] {
        var path: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--config" {
                guard index + 1 < arguments.count else { throw ValidationError("--config needs a file path.") }
                path = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--config=") { path = String(argument.dropFirst("--config=".count)) }
            index += 1
        }
        guard let path else { return arguments }
        do {
            return try ConfigFile(contentsOf: path, keys: keys).arguments + arguments
        } catch {
            throw ValidationError(error.description)
        }
    }
}
