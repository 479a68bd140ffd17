import SystemSupport
import ArgumentParser
import CommandLineSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PolicyOptions
import PositionSources
import Publisher
import WhereaboutsCore
import WhereaboutsMQTT

extension WhereaboutsPub {
    /// Checks every option together and builds the launch description; each problem is a
    /// `ValidationError` naming the flag (which is also the config key).
    func resolve() throws -> PublisherLaunch {
        guard let spec = source.source, !spec.isEmpty else {
            throw ValidationError("--source is required (gpsd://HOST:PORT, nmea:PATH, gpx:PATH or sim:SCENARIO).")
        }
        guard let user = identity.user, !user.isEmpty else { throw ValidationError("--user is required.") }
        guard let device = identity.device, !device.isEmpty else { throw ValidationError("--device is required.") }
        for (flag, value) in [("user", user), ("device", device)] {
            if let problem = OwnTracksName.problem(with: value) {
                throw ValidationError("--\(flag) '\(value)' cannot be a topic level: \(problem).")
            }
        }
        let tid = identity.tid ?? String(device.suffix(2))
        guard (1...2).contains(tid.count), tid.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw ValidationError("--tid '\(tid)' must be one or two letters or digits.")
        }
        let topicBase = identity.topicBase ?? PublisherSettings.defaultTopicBase(user: user, device: device)
        guard !topicBase.isEmpty, !topicBase.contains("+"), !topicBase.contains("#") else {
            throw ValidationError("--topic-base '\(topicBase)' must be a topic without wildcards.")
        }
        var sourceSpec: PositionSourceSpec
        do { sourceSpec = try PositionSourceSpec(parsing: spec) } catch { throw ValidationError(error.description) }
        if let text = source.replaySpeed {
            guard let speed = ReplaySpeed(text) else {
                throw ValidationError("--replay-speed '\(text)' must be a factor such as 10 (or 10x), realtime, or max.")
            }
            if case .gpsd = sourceSpec.kind { throw ValidationError("--replay-speed applies to recorded sources, not gpsd.") }
            sourceSpec.replay = speed
        }
        try broker.validate()
        try broker.checkTopicLevel(user, what: "--user")
        try broker.checkTopicLevel(device, what: "--device")
        for level in topicBase.split(separator: "/") { try broker.checkTopicLevel(String(level), what: "A level of the topic base") }
        try broker.checkQoS(publication.qos, flag: "--qos")
        try checkAccount(topicBase: topicBase)
        // The dynamic-security account name, which that plugin binds as the only client id.
        let mqtt = try broker.mqttConfiguration(defaultClientID: OwnTracksName.deviceAccount(user: user, device: device))
        guard daemon.outboxMax >= 1 else { throw ValidationError("--outbox-max must be at least 1, not \(daemon.outboxMax).") }
        guard daemon.drainTimeout.isFinite, daemon.drainTimeout >= 0 else {
            throw ValidationError("--drain-timeout must be zero or a positive number of seconds.")
        }
        guard (1...1000).contains(daemon.maxInFlight) else {
            throw ValidationError("--max-in-flight must be between 1 and 1000, not \(daemon.maxInFlight).")
        }
        guard daemon.receiptTimeout.isFinite, (1...86_400).contains(daemon.receiptTimeout) else {
            throw ValidationError("--receipt-timeout must be 1 to 86400 seconds (default 30).")
        }
        guard (0...100).contains(daemon.batteryLow) else { throw ValidationError("--battery-low must be a percentage 0...100.") }
        guard (0...100).contains(daemon.batteryHysteresis) else {
            throw ValidationError("--battery-hysteresis must be a percentage 0...100.")
        }
        guard daemon.batteryInterval.isFinite, daemon.batteryInterval >= 1 else {
            throw ValidationError("--battery-interval must be at least 1 second.")
        }
        if let port = daemon.metricsPort, !(0...65_535).contains(port) {
            throw ValidationError("--metrics-port must be in 0...65535, not \(port).")
        }
        let policies = try makePolicies()
        var settings = PublisherSettings(
            tid: tid, topicBase: topicBase, qos: publication.qos, retain: publication.retain,
            drainTimeout: .milliseconds(Int64(daemon.drainTimeout * 1000)), maxInFlight: daemon.maxInFlight)
        settings.encryptionKey = try owntracks.encryptionKey()
        settings.card = try owntracks.card(tid: tid)
        settings.heartbeat = publication.heartbeat
        settings.receiptTimeout = .milliseconds(Int64(daemon.receiptTimeout * 1000))
        settings.publishTimeout = daemon.publishTimeout.duration
        settings.receipts = publication.receipts
        // NATS acknowledges a QoS 1 message before its streams store it (RecentAcknowledgements).
        if broker.brokerKind == .nats { settings.acknowledgementGrace = .seconds(5) }
        // On NATS a persistent session's QoS 1 subscriptions are replicated JetStream consumers,
        // two per device; the outbox and the receipts do not need them (PublisherSettings).
        settings.persistentSession = broker.brokerKind != .nats
        let devicePlaces = try places.resolve()
        let outboxPath = daemon.outbox ?? StateDirectory.defaultOutboxPath(user: user, device: device)
        var launch = PublisherLaunch(
            settings: settings, source: sourceSpec, mqtt: mqtt,
            outboxPath: outboxPath,
            outboxMax: daemon.outboxMax, initialProfile: daemon.profile ?? .active,
            lowBattery: LowBatteryRule(threshold: daemon.batteryLow, hysteresis: daemon.batteryHysteresis),
            batteryInterval: .milliseconds(Int64(daemon.batteryInterval * 1000)), powerSupplyPath: daemon.powerSupplyPath,
            metricsPort: daemon.metricsPort, metricsAddress: daemon.metricsAddress, logLevel: daemon.logging.logLevel,
            policies: policies.profiles, makeFilter: policies.makeFilter)
        launch.places = devicePlaces.places
        launch.placeRules = devicePlaces.rules
        // Lower-cased like the outbox's default name (StateDirectory): a local file, never a topic.
        launch.placesStorePath = PathText.appending(
            "places-\(user.lowercased())-\(device.lowercased()).json", to: PathText.folder(of: outboxPath))
        return launch
    }

    /// Refuses a broker account that the generated access control would not let publish on the
    /// topic base (``OwnTracksName/accountProblem(username:user:device:)``): the broker would
    /// acknowledge every report and drop it. Only for a topic base of the OwnTracks shape
    /// `owntracks/<user>/<device>`; another `--topic-base` is outside the generated rules.
    /// An explicit `--topic-base` with an account of another name is taken as meant (one broker
    /// account shared by every device, without per-user access control); one that differs only
    /// in case never is.
    private func checkAccount(topicBase: String) throws {
        guard let username = broker.username else { return }
        let levels = topicBase.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count == 3, levels[0] == "owntracks",
              let problem = OwnTracksName.accountProblem(username: username, user: levels[1], device: levels[2])
        else { return }
        let caseOnly = OwnTracksName.accountDiffersOnlyInCase(username: username, user: levels[1], device: levels[2])
        if identity.topicBase != nil, !caseOnly { return }
        let shared = caseOnly ? "" : " With one broker account shared by every device and no per-user access control, give the topic explicitly (--topic-base \(topicBase))."
        throw ValidationError("--username '\(username)' does not match the topic \(topicBase): \(problem) (--user and --username).\(shared)")
    }

    /// The policies of both profiles and the rejection filters, from the policy flags shared with
    /// whereabouts-eval: `active` runs the one `--policy` given (bounded by default), `significant`
    /// runs the significant policy with `--significant-distance` and `--significant-interval`.
    func makePolicies() throws -> (profiles: ProfilePolicies, makeFilter: @Sendable () -> FixFilter) {
        _ = try policy.makeSinglePolicy(default: .bounded)  // checks exactly one policy and one epsilon
        let kind = try policy.kinds(default: [.bounded])[0]
        let epsilon = try policy.epsilons()[0]
        let settings = try policy.settings()
        let filter = try policy.filterSettings()
        let profiles = ProfilePolicies(
            active: { settings.makePolicy(kind, epsilon: epsilon) },
            significant: { settings.makePolicy(.significant) })
        return (profiles, { FixFilter(settings: filter) })
    }
}
