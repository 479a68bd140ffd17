import Foundation
import Logging
import WhereaboutsCore

/// Applies commands received on `<base>/cmd` to the ``Reporter``.
///
/// A malformed command is rejected with one warning line naming the reason, counted, and changes
/// nothing.
public struct CommandHandler: Sendable {
    private let reporter: Reporter
    private let metrics: PublisherMetrics
    private let logger: Logger

    /// Creates the handler.
    public init(reporter: Reporter, metrics: PublisherMetrics, logger: Logger) {
        self.reporter = reporter
        self.metrics = metrics
        self.logger = logger
    }

    /// Parses and applies one command payload. Returns the command, or `nil` when it was rejected.
    @discardableResult
    public func handle(payload: Data) async -> CommandMessage? {
        let command: CommandMessage
        do {
            command = try CommandMessage(payload: payload)
        } catch {
            metrics.command(accepted: false)
            logger.warning("Command rejected.", metadata: ["whereabouts.reason": "\(error.description)"])
            return nil
        }
        metrics.command(accepted: true)
        switch command {
        case .reportLocation:
            logger.info("Command: reportLocation.")
            do {
                try await reporter.reportNow()
            } catch {
                logger.error("Could not commit the requested report.", metadata: ["whereabouts.error": "\(error)"])
            }
        case .setProfile(let mode):
            logger.info("Command: set profile.", metadata: ["whereabouts.profile": "\(Reporter.name(mode))"])
            await reporter.request(mode, by: "command")
        }
        return command
    }
}
