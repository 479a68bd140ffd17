import ArgumentParser
import CommandLineDialect
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsMQTT

/// How to reach and log in to the broker: the same flags, with the same rules, for
/// `whereabouts-pub` and `whereabouts-sub` (and every `whereabouts-sub` subcommand).
///
/// TLS rule: TLS is on exactly when the broker URL is `mqtts://`; it then needs `--tls-ca-file` to
/// verify the broker, and the TLS files are refused with an `mqtt://` URL (so a certificate is
/// never silently unused, and TLS is never silently switched on). `--ca-file`, `--cert-file` and
/// `--key-file` are kept as aliases of the `--tls-` names.
package struct BrokerOptions: ParsableArguments {
    /// Creates the options with their defaults (ArgumentParser fills them).
    package init() {}

    /// The broker URL, or several separated by commas (the nodes of a cluster).
    @Option(help: ArgumentHelp(
        "The broker: mqtt://HOST[:PORT] (port 1883 by default) or mqtts://HOST[:PORT] for TLS (port 8883 by default), which needs --tls-ca-file. For a cluster, list its nodes separated by commas (mqtt://a:1883,mqtt://b:1883): the program connects to the first that answers and, when a node fails, to the next.",
        valueName: "url[,url...]"))
    package var broker: String = "mqtt://127.0.0.1:1883"

    /// The broker software, for its limits.
    @Option(help: ArgumentHelp(
        "The broker software: mosquitto (or any full MQTT 5 broker; spoken to as MQTT 5, so that it can say why it refuses a publish or a subscription) or nats (a NATS server's MQTT listener: MQTT 3.1.1; QoS 2 is refused, and user and device names must not contain '.', spaces, '@', '*' or '>'; whereabouts-pub connects with a clean session and subscribes to its commands and receipts at QoS 0, as each QoS 1 subscription of a persistent session costs NATS a replicated consumer).",
        valueName: "kind"))
    package var brokerKind: BrokerKind = .mosquitto

    /// The MQTT client id, if given.
    @Option(
        name: .customLong("client-id"),
        help: "The MQTT client id. It must stay the same across restarts: the broker keeps the persistent session under it. Each program's help says its default.")
    package var clientID: String?

    /// The login name, if any.
    @Option(help: "The user name to log in to the broker with. Without it the program connects anonymously.")
    package var username: String?

    /// The password file, if any.
    @Option(help: ArgumentHelp(
        "A file whose first line is the broker password. Without it, the WHEREABOUTS_PASSWORD environment variable is used. The password is never logged.",
        valueName: "file"))
    package var passwordFile: String?

    /// The keep-alive interval in seconds.
    @Option(help: "The MQTT keep-alive interval in seconds (5 to 65535).")
    package var keepAlive: Int = 30

    /// The CA certificates that verify the broker.
    @Option(
        name: [.customLong("tls-ca-file"), .customLong("ca-file")],
        help: ArgumentHelp("A PEM file of CA certificates to verify the broker with; needed for mqtts://.", valueName: "file"))
    package var tlsCAFile: String?

    /// The client certificate, if the broker requires one.
    @Option(
        name: [.customLong("tls-cert-file"), .customLong("cert-file")],
        help: ArgumentHelp("A PEM client certificate for brokers that require one; give --tls-key-file with it.", valueName: "file"))
    package var tlsCertFile: String?

    /// The client certificate's private key.
    @Option(
        name: [.customLong("tls-key-file"), .customLong("key-file")],
        help: ArgumentHelp("The PEM private key of --tls-cert-file.", valueName: "file"))
    package var tlsKeyFile: String?

    /// Whether the broker certificate's host name goes unchecked.
    @Flag(help: "Do not check that the broker's certificate names its host. Only for testing.")
    package var tlsInsecure: Bool = false

    /// The config-file keys of these flags (without the old aliases `ca-file`, `cert-file` and
    /// `key-file`).
    package static let configKeys: [ConfigKey] = [
        ConfigKey("broker", .string),
        .word("broker-kind", BrokerKind.self),
        ConfigKey("client-id", .string),
        ConfigKey("username", .string),
        ConfigKey("password-file", .string),
        ConfigKey("keep-alive", .integer),
        ConfigKey("tls-ca-file", .string),
        ConfigKey("tls-cert-file", .string),
        ConfigKey("tls-key-file", .string),
        ConfigKey("tls-insecure", .flag),
    ]

    /// The first broker URL.
    package func address() throws -> BrokerAddress {
        try addresses()[0]
    }

    /// Every broker URL, in the order they are tried; all plain or all TLS.
    package func addresses() throws -> [BrokerAddress] {
        let parts = broker.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        var addresses: [BrokerAddress] = []
        for part in parts {
            do { addresses.append(try BrokerAddress(parsing: part)) } catch { throw ValidationError(error.description) }
        }
        if addresses.contains(where: { $0.usesTLS != addresses[0].usesTLS }) {
            throw ValidationError("The brokers in --broker \(broker) mix mqtt:// and mqtts://; the nodes of one cluster use one or the other.")
        }
        if Set(addresses.map(\.description)).count != addresses.count {
            throw ValidationError("--broker \(broker) lists a broker twice.")
        }
        return addresses
    }

    /// Refuses a name that must be one topic level (`what`, e.g. "--user" or "the member
    /// alice/phone") which the broker cannot carry.
    package func checkTopicLevel(_ name: String, what: String) throws {
        if let problem = brokerKind.problem(withTopicLevel: name) {
            throw ValidationError("\(what) '\(name)' cannot be used with --broker-kind \(brokerKind.rawValue): \(problem). Rename it.")
        }
    }

    /// Refuses a QoS the broker does not carry.
    package func checkQoS(_ qos: QoS, flag: String) throws {
        if qos.rawValue > brokerKind.maximumQoS.rawValue {
            throw ValidationError("\(flag) \(qos.rawValue) cannot be used with --broker-kind \(brokerKind.rawValue): it carries QoS \(brokerKind.maximumQoS.rawValue) at most (NATS closes the connection of a QoS 2 client).")
        }
    }

    /// Checks the options together (ArgumentParser calls it before `run()`).
    package func validate() throws {
        let address = try address()
        _ = try addresses()
        guard (5...65_535).contains(keepAlive) else {
            throw ValidationError("--keep-alive must be between 5 and 65535 seconds, not \(keepAlive).")
        }
        guard (tlsCertFile == nil) == (tlsKeyFile == nil) else {
            throw ValidationError("--tls-cert-file and --tls-key-file go together: give both or neither.")
        }
        if address.usesTLS, tlsCAFile == nil {
            throw ValidationError("mqtts:// needs --tls-ca-file to verify the broker.")
        }
        if !address.usesTLS, tlsCAFile != nil || tlsCertFile != nil {
            throw ValidationError("TLS options need an mqtts:// broker; the URL \(broker) is plain mqtt://.")
        }
        if let passwordFile {
            do { _ = try Password.resolve(file: passwordFile) } catch { throw ValidationError(error.description) }
        }
        for file in [tlsCAFile, tlsCertFile, tlsKeyFile].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("The file \(file) cannot be read.")
        }
    }

    /// The client configuration these options describe: host and port (the other brokers of
    /// `--broker` as failover), client id (`defaultClientID` unless `--client-id` is given),
    /// persistent session (clean session off; under MQTT 5 one that never expires), keep-alive,
    /// MQTT 5 for mosquitto and 3.1.1 for NATS (`BrokerKind.protocolVersion`), the credentials (password
    /// from `--password-file` or `WHEREABOUTS_PASSWORD`) and TLS.
    package func mqttConfiguration(defaultClientID: String) throws -> MQTTConfiguration {
        let addresses = try addresses()
        let address = addresses[0]
        var configuration = MQTTConfiguration(
            host: address.host, port: address.port, clientID: clientID ?? defaultClientID, cleanSession: false,
            keepAlive: .seconds(keepAlive), protocolVersion: brokerKind.protocolVersion)
        configuration.failover = addresses.dropFirst().map { MQTTConfiguration.Endpoint(host: $0.host, port: $0.port) }
        if let username {
            let password: String?
            do { password = try Password.resolve(file: passwordFile) } catch { throw ValidationError(error.description) }
            configuration.credentials = .init(username: username, password: password)
        }
        if address.usesTLS {
            configuration.tls = .init(
                caFile: tlsCAFile, certificateFile: tlsCertFile, keyFile: tlsKeyFile,
                verifyPeer: true, verifyHostname: !tlsInsecure)
        }
        return configuration
    }
}
