import ArgumentParser
import Subscriber
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

    @OptionGroup var prefixes: TopicPrefixOptions

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

    @Option(help: """
        A member leaves a place only with a fix farther than the place's radius plus the larger of \
        this many metres and the fix's accuracy, so GPS jitter at the edge never flaps.
        """)
    var placeMargin: Double = 25

    @Option(help: "A member arrives at a place after this many seconds inside it, for places that set no dwell.")
    var placeDwell: Double = 60

    @Option(help: ArgumentHelp("""
        Keep member statuses (online, offline) in this file so that a restart restores them \
        (OwnTracks apps' last wills are not retained). Default: $STATE_DIRECTORY/<client-id>.status.json \
        under systemd, else ~/.local/state/whereabouts/<client-id>.status.json. `none` keeps them in memory only.
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

    @Option(help: "The log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        if let httpPort, !(1...65535).contains(httpPort) { throw ValidationError("--http-port must be in 1...65535.") }
        guard viewInterval > 0, viewInterval.isFinite else { throw ValidationError("--view-interval must be above 0 seconds.") }
        guard staleTimeout > 0, staleTimeout.isFinite else { throw ValidationError("--stale-timeout must be above 0 seconds.") }
        guard trailLength >= 1 else { throw ValidationError("--trail-length must be at least 1.") }
        guard trailMinutes >= 0 else { throw ValidationError("--trail-minutes must not be negative.") }
        guard maxPayload >= 256 else { throw ValidationError("--max-payload must be at least 256 bytes.") }
        guard futureTolerance >= 0 else { throw ValidationError("--future-tolerance must not be negative.") }
        guard maxAccuracy >= 0 else { throw ValidationError("--max-accuracy must not be negative (0 accepts any accuracy).") }
        guard maxSpeed >= 0, maxSpeed.isFinite else { throw ValidationError("--max-speed must not be negative (0 switches the check off).") }
        guard liveWindow >= 0, liveWindow.isFinite else { throw ValidationError("--live-window must not be negative.") }
        guard overdueGrace >= 0, overdueGrace <= 86_400 else { throw ValidationError("--overdue-grace must be 0 to 86400 seconds.") }
        guard goneAfterDays > 0, goneAfterDays <= 3_650 else { throw ValidationError("--gone-after-days must be above 0 and at most 3650.") }
        guard placeMargin >= 0, placeMargin <= 10_000 else { throw ValidationError("--place-margin must be 0 to 10000 metres.") }
        guard placeDwell >= 0, placeDwell <= 86_400 else { throw ValidationError("--place-dwell must be 0 to 86400 seconds.") }
        if let stateFile, stateFile.isEmpty { throw ValidationError("--state-file must name a file, or be `none`.") }
        do { _ = try Shard(parsing: shard) } catch { throw ValidationError(error.description) }
        guard historyDays >= 0 else { throw ValidationError("--history-days must not be negative (0 keeps locations for ever).") }
        if let historyMaxMb, historyMaxMb < 1 { throw ValidationError("--history-max-mb must be at least 1.") }
        _ = try Self.circleDays(historyCircleDays)
        if history == nil, historyCircleDays != nil || historyMaxMb != nil {
            throw ValidationError("--history-circle-days and --history-max-mb need --history FILE.")
        }
        if let history, history.isEmpty { throw ValidationError("--history must name a file.") }
        do { try CirclesFile.load(path: circles).check(for: brokerOptions.brokerKind) } catch {
            throw ValidationError("The circles file \(circles) is not valid: \(error)")
        }
    }

    func run() async throws {
        let logger = bootstrapLogging(level: logLevel)
        let shard = try Shard(parsing: shard)
        let file = try CirclesFile.load(path: circles)
        let settings = ViewSettings(
            staleTimeout: staleTimeout, trailLength: trailLength, trailDuration: trailMinutes * 60,
            futureTolerance: futureTolerance, maxPayloadBytes: maxPayload, liveWindow: liveWindow,
            placeRules: .subscriber(margin: placeMargin, defaultDwell: placeDwell),
            overdueGrace: overdueGrace, goneAfter: goneAfterDays * 86_400,
            maxAccuracy: maxAccuracy > 0 ? maxAccuracy : nil, maxImpliedSpeed: maxSpeed > 0 ? maxSpeed : nil)
        let store = CircleViewStore(circles: file, shard: shard, settings: settings, viewInterval: viewInterval, logger: logger)
        let defaultClientID = shard.count == 1 ? "whereabouts-sub" : "whereabouts-sub-\(shard.index)-of-\(shard.count)"
        let mqtt = try brokerOptions.mqttConfiguration(defaultClientID: defaultClientID)
        let statusPath = try Self.statusPath(stateFile, clientID: mqtt.clientID)
        var configuration = SubscriberConfiguration(
            viewPrefix: prefixes.viewPrefix, topicPrefix: prefixes.topicPrefix, viewInterval: viewInterval, settings: settings,
            circlesPath: circles, statusPath: statusPath)
        configuration.brokerKind = brokerOptions.brokerKind
        configuration.receipts = receipts
        // NATS makes each QoS 1 subscription a JetStream consumer: two wildcards, not two per member.
        if brokerOptions.brokerKind == .nats { configuration.subscription = .wildcard }
        var historyWriter: HistoryWriter?
        if let history {
            let retention = HistoryRetention(
                days: historyDays, circleDays: try Self.circleDays(historyCircleDays), maxBytes: historyMaxMb.map { $0 * 1_048_576 })
            do {
                historyWriter = HistoryWriter(store: try HistoryStore(path: history, logger: logger), retention: retention, views: store, logger: logger)
            } catch {
                logger.critical("\(error)")
                throw ExitCode(1)
            }
        }
        var services: [any Service] = []
        if let httpPort {
            var dashboard = dashboardOptions.configuration(port: httpPort)
            dashboard.history = historyWriter?.store  // the OwnTracks Recorder API, with --history
            do { dashboard.login = try dashboardOptions.authenticator(logger: logger) } catch {  // --users
                logger.critical("\(error)")
                throw ExitCode(1)
            }
            services.append(DashboardService(source: store, configuration: dashboard, logger: logger))
        }
        let app = SubscriberApp(
            store: store, mqtt: mqtt, configuration: configuration, services: services, history: historyWriter, logger: logger)
        let broker = brokerOptions.broker
        try await app.run { _ in
            logger.info("Connected to the broker.", metadata: ["whereabouts.broker": "\(broker)", "whereabouts.shard": "\(shard)"])
            if let statusPath { logger.info("Keeping member statuses.", metadata: ["whereabouts.file": "\(statusPath)"]) }
        }
    }

    /// The `--history-circle-days` pairs by circle id.
    static func circleDays(_ option: String?) throws -> [String: Int] {
        guard let option else { return [:] }
        var days: [String: Int] = [:]
        for pair in option.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let value = Int(parts[1]), value >= 0 else {
                throw ValidationError("--history-circle-days: \"\(pair)\" is not id=days with days 0 or more (family=365,work=7).")
            }
            days[parts[0]] = value
        }
        return days
    }

    /// The status file: the option's value, `nil` for `none`, or the default location (its
    /// directory created).
    static func statusPath(_ option: String?, clientID: String) throws -> String? {
        if option == "none" { return nil }
        if let option { return option }
        let environment = ProcessInfo.processInfo.environment
        let directory: String
        if let state = environment["STATE_DIRECTORY"]?.split(separator: ":").first, !state.isEmpty {
            directory = String(state)
        } else {
            let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
            directory = (base as NSString).appendingPathComponent("whereabouts")
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return (directory as NSString).appendingPathComponent("\(clientID).status.json")
    }
}
