import ArgumentParser
import CommandLineDialect

/// How long one publish may wait for the broker's acknowledgement: the same flag, with the same
/// rule and default, for `whereabouts-pub` (reports, heartbeats, cards) and `whereabouts-sub run`
/// (circle views, receipts).
package struct PublishTimeoutOption: ParsableArguments {
    /// Creates the option with its default (ArgumentParser fills it).
    package init() {}

    /// The limit in seconds, 1 to 3600.
    @Option(help: ArgumentHelp(
        "How many seconds one publish may wait for the broker's acknowledgement before it counts as failed and is sent again later (1 to 3600). Raise it on links with long delays, e.g. satellite.",
        valueName: "seconds"))
    package var publishTimeout: Double = 10

    /// The config-file key of the flag.
    package static let configKeys: [ConfigKey] = [ConfigKey("publish-timeout", .number)]

    /// Refuses a limit outside 1 to 3600 seconds (ArgumentParser calls it before `run()`).
    package func validate() throws {
        guard publishTimeout.isFinite, (1...3600).contains(publishTimeout) else {
            throw ValidationError("--publish-timeout must be 1 to 3600 seconds (default 10), not \(publishTimeout).")
        }
    }

    /// The limit as a duration, to the millisecond.
    package var duration: Duration { .milliseconds(Int64(publishTimeout * 1000)) }
}
