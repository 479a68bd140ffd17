import ArgumentParser
import Subscriber
import CommandLineDialect
import CommandLineSupport
import Dashboard
import DashboardOptions
import Foundation
import Logging
import ServiceLifecycle
import WhereaboutsMQTT

/// `whereabouts-sub run` (the default): the subscriber itself.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Subscribe to the circles' members and publish their circle views (the default).",
        discussion: """
            The circles file is reloaded when it changes and on SIGHUP; members that stay keep their \
            state. SIGTERM or SIGINT stop the subscriber cleanly. The subscriber uses a persistent \
            MQTT session (clean session off) under a stable client id, so messages published while it \
            restarts are delivered when it comes back.
            """
    )

    @Option(help: ArgumentHelp("The circles file (YAML). See examples/circles.yaml.", valueName: "file"))
    var circles: String

    @OptionGroup var brokerOptions: BrokerOptions

    @Option(help: ArgumentHelp(
        "A YAML config file whose keys are these long flags without the dashes (see docs/subscriber.md). Flags on the command line override it.",
        valueName: "path"))
    var config: String?

    @Option(help: "Serve the web dashboard and its JSON API on this HTTP port. Without it no HTTP server runs.")
    var httpPort: Int?

    @OptionGroup var dashboardOptions: DashboardOptions

    @OptionGroup var inviteOptions: DashboardInviteOptions

    @OptionGroup var prefixes: TopicPrefixOptions

    @OptionGroup var publishTimeout: PublishTimeoutOption

    @Option(help: "Publish each circle's view at most once per this many seconds, and only when it changed.")
    var viewInterval: Double = 1

    @Option(help: """
        Show a member as stale (devices that promise nothing, like the OwnTracks apps) after this many \
        seconds without news; a promising device without a fix for this long is stationary.
        """)
    var staleTimeout: Double = 300

    @Option(help: "Show a member as overdue this many seconds after the time its device promised its next message (due).")
    var overdueGrace: Double = 120

    @Option(help: "Show a member as gone (hidden from the map, still listed) after this many days without any news.")
    var goneAfterDays: Double = 30

    @Option(help: "Keep at most this many fixes in each member's trail.")
    var trailLength: Int = 20

    @Option(help: "Keep trail fixes at most this many minutes older than the member's newest fix.")
    var trailMinutes: Int = 10

    @Option(help: "Reject payloads larger than this many bytes, not counting an iOS location's attached photo (image, dropped and counted: the fix is kept) or an encrypted message's ciphertext; no payload over 470 KB is read.")
    var maxPayload: Int = 16 * 1024

    @Option(help: "Reject fixes whose timestamp lies more than this many seconds in the future.")
    var futureTolerance: Int = 300

    @Option(help: """
        Reject locations claiming an accuracy (acc) worse than this many metres as outliers: kept \
        aside in the history (restorable), never shown. The default, 5000, rejects cell-tower \
        fixes and keeps Wi-Fi and network ones; 0 accepts any accuracy.
        """)
    var maxAccuracy: Int = 5000

    @Option(help: """
        Reject locations that imply more than this speed (m/s) from the member's live fix as \
        outliers: kept aside in the history (restorable), never shown. The default, 350 \
        (1,260 km/h), rejects only jumps no device makes; 0 switches the check off.
        """)
    var maxSpeed: Double = 350

    @Option(help: """
        A fix whose timestamp is at most this many seconds old on arrival, and newer than the member's \
        live fix, is live news and sets the member online; older ones are backlog (trail only).
        """)
    var liveWindow: Double = 60

    @OptionGroup var placeRules: PlaceRuleOptions

    @Option(help: ArgumentHelp("""
        Keep member statuses (online, offline) in this file so that a restart restores them \
        (OwnTracks apps' last wills are not retained). Default: $STATE_DIRECTORY/<client-id>.status.json \
        under systemd, else ~/.local/state/whereabouts/<client-id>.status.json (a `/` in the client id is written %2F). `none` keeps them in memory only.
        """, valueName: "file"))
    var stateFile: String?

    @Option(help: ArgumentHelp("""
        Keep every accepted location and transition of every member in this SQLite file, ordered by \
        time, for the trail and the OwnTracks Recorder API (docs/subscriber.md, "History"). Off when \
        not given: nothing is kept past the live trail.
        """, valueName: "file"))
    var history: String?

    @Option(help: ArgumentHelp("""
        With --history: keep locations this many days after their timestamp; 0 keeps them for ever.
        """, valueName: "days"))
    var historyDays: Int = 30

    @Option(help: ArgumentHelp("""
        With --history: per-circle retention overriding --history-days, as id=days pairs separated by \
        commas (family=365,work=7). A member of several circles keeps the longest.
        """, valueName: "id=days,..."))
    var historyCircleDays: String?

    @Option(help: ArgumentHelp("""
        With --history: keep at most this many megabytes of history; past it the oldest locations \
        are removed (logged and counted). Default: no cap.
        """, valueName: "MB"))
    var historyMaxMb: Int?

    @Option(help: ArgumentHelp("""
        Own only the circles whose id hashes (FNV-1a) to shard i of n, and subscribe only to their \
        members, so that n instances share the load. The default 0/1 owns every circle.
        """, valueName: "i/n"))
    var shard: String = "0/1"

    @Flag(inversion: .prefixedNo, help: """
        Confirm to each member's publisher what was durably taken in (history committed, or view and \
        status file written), on whereabouts/receipts/<user>/<device>/<client id>, so that it keeps and \
        resends what did not arrive. Turn off for a subscriber that must not hold publishers back (a \
        second dashboard host). See docs/receipts.md.
        """)
    var receipts: Bool = true

    @OptionGroup var logging: LoggingOptions

    /// The keys a `--config` file accepts: every long flag except `--config`, `--help` and
    /// `--version` (and the old aliases of the broker and dashboard flags), each declared beside
    /// its flag: this command's own here, the rest by its option groups.
    static let configKeys: [ConfigKey] = [
        ConfigKey("circles", .string),
        ConfigKey("http-port", .integer),
        ConfigKey("view-interval", .number),
        ConfigKey("stale-timeout", .number),
        ConfigKey("overdue-grace", .number),
        ConfigKey("gone-after-days", .number),
        ConfigKey("trail-length", .integer),
        ConfigKey("trail-minutes", .integer),
        ConfigKey("max-payload", .integer),
        ConfigKey("future-tolerance", .integer),
        ConfigKey("max-accuracy", .integer),
        ConfigKey("max-speed", .number),
        ConfigKey("live-window", .number),
        ConfigKey("state-file", .string),
        ConfigKey("history", .string),
        ConfigKey("history-days", .integer),
        ConfigKey("history-circle-days", .string),
        ConfigKey("history-max-mb", .integer),
        ConfigKey("shard", .string),
        ConfigKey("receipts", .boolean),
    ] + BrokerOptions.configKeys + PublishTimeoutOption.configKeys + DashboardOptions.configKeys + TopicPrefixOptions.configKeys
        + LoggingOptions.configKeys
        + DashboardInviteOptions.configKeys + PlaceRuleOptions.configKeys

    func validate() throws {
        if inviteOptions.inviteAccounts != nil, httpPort == nil || dashboardOptions.usersFile == nil {
            throw ValidationError("--invite-accounts serves the dashboard's invite dialog to circle admins: give --http-port and --users too.")
        }
        _ = try resolve()
    }

    func run() async throws {
        let launch = try resolve()
        let logger = LoggingOptions.bootstrap(label: "whereabouts-sub", level: launch.logLevel)
        if stateFile == nil, let statusPath = launch.configuration.statusPath {  // the default place
            try FileManager.default.createDirectory(
                atPath: (statusPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        }
        let store = CircleViewStore(
            circles: launch.circles, shard: launch.shard, settings: launch.configuration.settings,
            viewInterval: launch.configuration.viewInterval, logger: logger)
        var historyWriter: HistoryWriter?
        if let history = launch.history {
            do {
                historyWriter = HistoryWriter(
                    store: try HistoryStore(path: history.path, logger: logger), retention: history.retention, views: store, logger: logger)
            } catch {
                logger.critical("\(error)")
                throw ExitCode(1)
            }
        }
        var services: [any Service] = []
        if var dashboard = launch.dashboard {
            dashboard.history = historyWriter?.store  // the OwnTracks Recorder API, with --history
            do { dashboard.login = try dashboardOptions.authenticator(logger: logger) } catch {  // --users
                logger.critical("\(error)")
                throw ExitCode(1)
            }
            dashboard.invites = try inviteOptions.desk(circlesPath: circles, broker: brokerOptions, prefixes: prefixes, logger: logger)  // --invite-accounts
            services.append(DashboardService(source: store, configuration: dashboard, logger: logger))
        }
        let app = SubscriberApp(
            store: store, mqtt: launch.mqtt, configuration: launch.configuration, services: services, history: historyWriter,
            logger: logger)
        let broker = brokerOptions.broker
        let shard = launch.shard
        let statusPath = launch.configuration.statusPath
        try await app.run { _ in
            logger.info("Connected to the broker.", metadata: ["whereabouts.broker": "\(broker)", "whereabouts.shard": "\(shard)"])
            if let statusPath { logger.info("Keeping member statuses.", metadata: ["whereabouts.file": "\(statusPath)"]) }
        }
    }
}
