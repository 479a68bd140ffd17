import ArgumentParser

/// How to reach the broker.
struct BrokerOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The broker: mqtt://HOST:PORT (port 1883 by default) or mqtts://HOST:PORT for TLS (port 8883 by default).",
        valueName: "url"))
    var broker: String = "mqtt://127.0.0.1:1883"

    @Option(help: "The MQTT client id. Defaults to whereabouts-<user>-<device>; the presence connection adds -presence.")
    var clientId: String?

    @Option(help: "The user name to log in to the broker with.")
    var username: String?

    @Option(help: ArgumentHelp(
        "A file whose first line is the broker password. Without it, the WHEREABOUTS_PASSWORD environment variable is used. The password is never logged.",
        valueName: "path"))
    var passwordFile: String?

    @Option(help: "The MQTT quality of service for location and presence messages: 0, 1 or 2.")
    var qos: Int = 1

    @Flag(inversion: .prefixedNo, help: "Publish location messages retained, so that a late subscriber sees the last position at once.")
    var retain: Bool = true

    @Option(help: "The MQTT keep-alive interval in seconds.")
    var keepAlive: Int = 30

    @Option(help: ArgumentHelp("A file of CA certificates (PEM) to verify the broker with; needed for mqtts://.", valueName: "path"))
    var tlsCaFile: String?

    @Option(help: ArgumentHelp("A client certificate (PEM) for brokers that require one; give --tls-key-file with it.", valueName: "path"))
    var tlsCertFile: String?

    @Option(help: ArgumentHelp("The private key (PEM) of the client certificate.", valueName: "path"))
    var tlsKeyFile: String?

    @Flag(help: "Do not check that the broker's certificate names its host. Only for testing.")
    var tlsInsecure: Bool = false
}
