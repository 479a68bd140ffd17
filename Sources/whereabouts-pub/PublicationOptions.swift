import ArgumentParser
import CommandLineSupport
import WhereaboutsMQTT

/// How location messages are published (how to reach the broker is ``BrokerOptions``).
struct PublicationOptions: ParsableArguments {
    @Option(help: "The MQTT quality of service for location messages: 0, 1 or 2 (presence and the card go at least at 1).")
    var qos: QoS = .atLeastOnce

    @Flag(inversion: .prefixedNo, help: "Publish location messages retained, so that a late subscriber sees the last position at once.")
    var retain: Bool = true
}
