import ArgumentParser
import CommandLineDialect
import CommandLineSupport
import WhereaboutsMQTT

/// How location messages are published (how to reach the broker is ``BrokerOptions``).
struct PublicationOptions: ParsableArguments {
    @Option(help: "The MQTT quality of service for location messages: 0, 1 or 2 (presence and the card go at least at 1).")
    var qos: QoS = .atLeastOnce

    @Flag(inversion: .prefixedNo, help: "Publish location messages retained, so that a late subscriber sees the last position at once.")
    var retain: Bool = true

    @Flag(inversion: .prefixedNo, help: """
        Stamp each report with its sequence number and, where a subscriber confirms receipts, keep it \
        until a receipt covers it (see --receipt-timeout and docs/receipts.md). Off: delete on the \
        broker's acknowledgement, without asking.
        """)
    var receipts: Bool = true

    @Option(help: """
        Promise the next message within this many seconds: every location message and online presence \
        carries that time as `due`, and while nothing else is sent a small heartbeat (the retained online \
        presence) goes out when it is due, so subscribers can tell a device standing still from a dead one.
        """)
    var heartbeat: Int = 900

    /// The config-file keys of these flags.
    static let configKeys: [ConfigKey] = [
        ConfigKey("qos", .integer), ConfigKey("retain", .boolean), ConfigKey("receipts", .boolean), ConfigKey("heartbeat", .integer),
    ]

    func validate() throws {
        guard (10...86_400).contains(heartbeat) else {
            throw ValidationError("--heartbeat must be 10 to 86400 seconds (default 900, 15 minutes).")
        }
    }
}
