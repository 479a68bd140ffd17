import ArgumentParser
import Circles
import Foundation
import WhereaboutsMQTT

/// How to reach and log in to the broker.
struct BrokerOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The broker's URL: mqtt://HOST:PORT, or mqtts://HOST:PORT for TLS.",
        valueName: "url"))
    var broker: String = "mqtt://127.0.0.1:1883"

    @Option(help: "The MQTT user name to log in with. Without it the subscriber connects anonymously.")
    var username: String?

    @Option(help: ArgumentHelp(
        "A file whose first line is the MQTT password. The environment variable WHEREABOUTS_PASSWORD is used when this is not given. The password is never logged.",
        valueName: "file"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("A PEM file of CA certificates to verify the broker with; implies TLS.", valueName: "file"))
    var caFile: String?

    @Option(help: ArgumentHelp("A PEM client certificate for brokers that require one.", valueName: "file"))
    var certFile: String?

    @Option(help: ArgumentHelp("The PEM private key of --cert-file.", valueName: "file"))
    var keyFile: String?

    @Option(help: """
        The MQTT client id. It must stay the same across restarts, because the broker keeps the \
        persistent session (subscriptions and queued messages) under it. The default is \
        whereabouts-sub, followed by -<i>-of-<n> when --shard is used.
        """)
    var clientID: String?

    /// Host, port and whether TLS is on, from `--broker` (TLS also when a CA file is given).
    func endpoint() throws -> (host: String, port: Int, tls: Bool) {
        let address: BrokerAddress
        do { address = try BrokerAddress(parsing: broker) } catch { throw ValidationError(error.description) }
        return (address.host, address.port, address.usesTLS || caFile != nil)
    }

    func validate() throws {
        _ = try endpoint()
        if (certFile == nil) != (keyFile == nil) {
            throw ValidationError("--cert-file and --key-file go together: give both or neither.")
        }
        for file in [passwordFile, caFile, certFile, keyFile].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("The file \(file) cannot be read.")
        }
    }

    /// The client configuration: persistent session (clean session off) under a stable client id.
    func mqttConfiguration(defaultClientID: String) throws -> MQTTConfiguration {
        let (host, port, tls) = try endpoint()
        var configuration = MQTTConfiguration(host: host, port: port, clientID: clientID ?? defaultClientID, cleanSession: false)
        if let username {
            configuration.credentials = .init(username: username, password: try password())
        }
        if tls {
            configuration.tls = .init(caFile: caFile, certificateFile: certFile, keyFile: keyFile)
        }
        return MQTTCircleTransport.subscriberConfiguration(configuration)
    }

    private func password() throws -> String? {
        do { return try Password.resolve(file: passwordFile) } catch { throw ValidationError(error.description) }
    }
}
