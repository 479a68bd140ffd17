import Logging

/// Sends every log line of this process to standard error at `level` (the `--log-level` value),
/// and returns the program's logger. Called once, at the start of a subcommand's `run()`.
func bootstrapLogging(level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    return Logger(label: "whereabouts-sub")
}
