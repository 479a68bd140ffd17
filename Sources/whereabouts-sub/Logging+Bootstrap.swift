import Logging

/// Sends every log line of this process to standard error at `level` (a `--log-level` value;
/// unknown values mean info), and returns the program's logger. Called once, at the start of a
/// subcommand's `run()`.
func bootstrapLogging(level name: String) -> Logger {
    let level = Logger.Level(rawValue: name) ?? .info
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return Logger(label: "whereabouts-sub")
}
