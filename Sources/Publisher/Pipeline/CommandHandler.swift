import Foundation
import Logging
import OwnTracksCrypto
import WhereaboutsCore

/// Applies commands received on `<base>/cmd` to the ``Reporter``.
///
/// A malformed command is rejected with one warning line naming the reason, counted, and changes
/// nothing. With a secret, an encrypted command (`{"_type":"encrypted",…}`, as OwnTracks tools send
/// it to an encrypting device) is decrypted first; one that does not decrypt is rejected the same
/// way. Plain commands are accepted either way.
struct CommandHandler: Sendable {
    private let reporter: Reporter
    private let metrics: PublisherMetrics
    private let secret: OwnTracksKey?
    private let logger: Logger

    /// Creates the handler; `secret` decrypts encrypted commands.
    init(reporter: Reporter, metrics: PublisherMetrics, secret: OwnTracksKey? = nil, logger: Logger) {
        self.reporter = reporter
        self.metrics = metrics
        self.secret = secret
        self.logger = logger
    }

    /// Parses and applies one command payload. Returns the command, or `nil` when it was rejected.
    @discardableResult
    func handle(payload: Data) async -> CommandMessage? {
        var payload = payload
        if let secret, payload.count <= 2 * CommandMessage.maxPayloadSize, EncryptedMessage.isEncrypted(payload) {
            do {
                payload = try EncryptedMessage.open(payload, with: secret)
            } catch {
                metrics.command(accepted: false)
                logger.warning("Command rejected.", metadata: ["whereabouts.reason": "\(error.description)"])
                return nil
            }
        }
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
        case .setWaypoints, .clearWaypoints, .listWaypoints:
            logger.notice("Command not applied: this publisher has no places yet.")
        }
        return command
    }
}
