import ArgumentParser
import CommandLineDialect
import CommandLineSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PolicyOptions
import Publisher

/// `whereabouts-pub`: reads a position source and publishes the fixes that matter over MQTT
/// (started by `Entry`).
struct WhereaboutsPub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whereabouts-pub",
        abstract: "Publish the positions of this device to an MQTT broker, OwnTracks-compatible.",
        discussion: """
            Fixes from the source pass the rejection filters and the reporting policy; every report \
            is committed to a durable SQLite outbox before it is published, and deleted only when \
            the broker acknowledged it, so no report is lost to a crash, a kill -9 or an outage. \
            SIGTERM or SIGINT drains the outbox (up to --drain-timeout) and disconnects cleanly; \
            SIGUSR1 switches to the significant profile and SIGUSR2 back to active. \
            See docs/publisher.md.
            """,
        version: "0.1.0"
    )

    @OptionGroup(title: "Source") var source: SourceOptions
    @OptionGroup(title: "Identity") var identity: IdentityOptions
    @OptionGroup(title: "Broker") var broker: BrokerOptions
    @OptionGroup(title: "Publication") var publication: PublicationOptions
    @OptionGroup(title: "Daemon") var daemon: DaemonOptions
    @OptionGroup(title: "OwnTracks encryption and card") var owntracks: OwnTracksOptions
    @OptionGroup(title: "Places") var places: PlacesOptions
    @OptionGroup(title: "Policy and filters (the same flags as whereabouts-eval)") var policy: PolicyOptions

    func validate() throws {
        _ = try resolve()
    }

    func run() async throws {
        let launch = try resolve()
        let logger = LoggingOptions.bootstrap(label: "whereabouts-pub", level: launch.logLevel)
        for warning in policy.ineffectiveFlagWarnings { logger.warning("\(warning)") }
        if let key = launch.settings.encryptionKey {
            logger.info("Encrypting every payload but the wills (OwnTracks secretbox).")
            if key.isTruncated {
                logger.warning("The secret is \(key.secretLength) bytes; only its first 32 count, as in the OwnTracks apps.")
            }
        }
        do {
            try await PublisherApp(launch: launch, logger: logger).run()
        } catch {
            logger.critical("Stopped: \(error)")
            throw ExitCode.failure
        }
    }

    /// The keys a `--config` file accepts: every long flag except `--config`, `--help` and
    /// `--version`, each declared by the option group that holds the flag.
    static let configKeys: [ConfigKey] = SourceOptions.configKeys + IdentityOptions.configKeys + BrokerOptions.configKeys
        + PublicationOptions.configKeys + DaemonOptions.configKeys + OwnTracksOptions.configKeys + PlacesOptions.configKeys
        + PolicyOptions.configKeys

    /// Reads the config file (if any), then parses it followed by the command line, so flags win;
    /// a bad command line or config file exits with code 2 and a message naming the problem.
    static func main() async {
        await mainWithUsageExitStatus(preparingArguments: { try ConfigArguments.expand($0, keys: configKeys) })
    }
}
