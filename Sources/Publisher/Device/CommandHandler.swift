#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
import OwnTracksCrypto
import WhereaboutsCore
import WhereaboutsMQTT

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
    private let replies: (connection: any BrokerConnection, settings: PublisherSettings)?
    private let logger: Logger

    /// Creates the handler; `secret` decrypts encrypted commands; `replies` is where the
    /// `waypoints` reply goes (`<base>/waypoints` on that connection); without it the reply is
    /// only logged.
    init(
        reporter: Reporter, metrics: PublisherMetrics, secret: OwnTracksKey? = nil,
        replies: (connection: any BrokerConnection, settings: PublisherSettings)? = nil, logger: Logger
    ) {
        self.reporter = reporter
        self.metrics = metrics
        self.secret = secret
        self.replies = replies
        self.logger = logger
    }

    /// Parses and applies one command payload. Returns the command, or `nil` when it was rejected.
    @discardableResult
    func handle(payload: Data) async -> CommandMessage? {
        var payload = payload
        if let secret, payload.count <= 2 * CommandMessage.maxWaypointsPayloadSize, EncryptedMessage.isEncrypted(payload) {
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
            logger.info("Command: set profile.", metadata: ["whereabouts.profile": "\(mode.name)"])
            await reporter.request(mode, by: "command")
        case .setWaypoints(let batch):
            logger.info("Command: setWaypoints.", metadata: ["whereabouts.waypoints": "\(batch.items.count + batch.rejected.count)"])
            await reporter.setWaypoints(batch)
        case .clearWaypoints:
            logger.info("Command: clearWaypoints.")
            await reporter.clearWaypoints()
        case .listWaypoints:
            logger.info("Command: waypoints.")
            await publishWaypoints()
        }
        return command
    }

    /// Publishes the device's places as `{"_type":"waypoints","waypoints":[…]}` on
    /// `<base>/waypoints`, not retained, as the OwnTracks iOS app answers the command.
    private func publishWaypoints() async {
        let message = WaypointsMessage(places: await reporter.allPlaces)
        guard let (connection, settings) = replies else {
            logger.notice("No connection to answer the waypoints command on.")
            return
        }
        do {
            try await connection.publish(
                to: settings.waypointsTopic, payload: ReportEncoder.encode(message), qos: settings.qos, retain: false,
                timeout: settings.publishTimeout)
            logger.info("Published the waypoints.", metadata: ["whereabouts.waypoints": "\(message.waypoints.count)"])
        } catch {
            logger.warning("Could not publish the waypoints.", metadata: ["whereabouts.error": "\(error)"])
        }
    }
}
