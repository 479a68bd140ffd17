import ArgumentParser
import Foundation
import Logging
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
            guard !value.contains(where: { "/+#".contains($0) || $0.isWhitespace }) else {
                throw ValidationError("--\(flag) '\(value)' must not contain '/', '+', '#' or spaces: it is a topic level.")
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
        let address: BrokerAddress
        do { address = try BrokerAddress(parsing: broker.broker) } catch { throw ValidationError(error.description) }
        guard (0...2).contains(broker.qos) else { throw ValidationError("--qos must be 0, 1 or 2, not \(broker.qos).") }
        guard (5...65_535).contains(broker.keepAlive) else {
            throw ValidationError("--keep-alive must be between 5 and 65535 seconds, not \(broker.keepAlive).")
        }
        if address.usesTLS, broker.tlsCaFile == nil {
            throw ValidationError("mqtts:// needs --tls-ca-file to verify the broker.")
        }
        guard (broker.tlsCertFile == nil) == (broker.tlsKeyFile == nil) else {
            throw ValidationError("--tls-cert-file and --tls-key-file go together.")
        }
        if !address.usesTLS, broker.tlsCaFile != nil || broker.tlsCertFile != nil {
            throw ValidationError("TLS options need an mqtts:// broker.")
        }
        let password: String?
        do { password = try Password.resolve(file: broker.passwordFile) } catch { throw ValidationError(error.description) }
        guard daemon.outboxMax >= 1 else { throw ValidationError("--outbox-max must be at least 1, not \(daemon.outboxMax).") }
        guard daemon.drainTimeout.isFinite, daemon.drainTimeout >= 0 else {
            throw ValidationError("--drain-timeout must be zero or a positive number of seconds.")
        }
        guard (1...1000).contains(daemon.maxInFlight) else {
            throw ValidationError("--max-in-flight must be between 1 and 1000, not \(daemon.maxInFlight).")
        }
        let profile: MonitoringMode
        switch daemon.profile {
        case "active": profile = .active
        case "significant": profile = .significant
        default: throw ValidationError("--profile must be active or significant, not '\(daemon.profile)'.")
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
        guard let level = Logger.Level(rawValue: daemon.logLevel) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
        }
        let policies = try makePolicies()
        var settings = PublisherSettings(
            tid: tid, topicBase: topicBase, qos: broker.qos, retain: broker.retain,
            drainTimeout: .milliseconds(Int64(daemon.drainTimeout * 1000)), maxInFlight: daemon.maxInFlight)
        settings.encryptionKey = try owntracks.encryptionKey()
        settings.card = try owntracks.card(tid: tid)
        return PublisherLaunch(
            settings: settings, source: sourceSpec, broker: address,
            clientID: broker.clientId ?? "whereabouts-\(user)-\(device)".lowercased(),
            username: broker.username, password: password, keepAlive: .seconds(broker.keepAlive),
            tlsCAFile: broker.tlsCaFile, tlsCertificateFile: broker.tlsCertFile, tlsKeyFile: broker.tlsKeyFile,
            tlsInsecure: broker.tlsInsecure,
            outboxPath: daemon.outbox ?? StateDirectory.defaultOutboxPath(user: user, device: device),
            outboxMax: daemon.outboxMax, initialProfile: profile,
            lowBattery: LowBatteryRule(threshold: daemon.batteryLow, hysteresis: daemon.batteryHysteresis),
            batteryInterval: .milliseconds(Int64(daemon.batteryInterval * 1000)), powerSupplyPath: daemon.powerSupplyPath,
            metricsPort: daemon.metricsPort, metricsAddress: daemon.metricsAddress, logLevel: level,
            policies: policies.profiles, makeScreen: policies.makeScreen)
    }
}
