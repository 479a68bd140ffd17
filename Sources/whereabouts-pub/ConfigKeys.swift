import CommandLineSupport
import Publisher

/// The keys a `--config` file accepts: every long flag of `whereabouts-pub` except `--config`,
/// `--help` and `--version`, with the kind of value it takes.
enum ConfigKeys {
    static let all: [ConfigKey] = [
        ConfigKey("source", .string),
        ConfigKey("replay-speed", .string),
        ConfigKey("user", .string),
        ConfigKey("device", .string),
        ConfigKey("tid", .string),
        ConfigKey("topic-base", .string),
        ConfigKey("broker", .string),
        ConfigKey("broker-kind", .word(["mosquitto", "nats"])),
        ConfigKey("client-id", .string),
        ConfigKey("username", .string),
        ConfigKey("password-file", .string),
        ConfigKey("qos", .integer),
        ConfigKey("retain", .boolean),
        ConfigKey("receipts", .boolean),
        ConfigKey("heartbeat", .integer),
        ConfigKey("keep-alive", .integer),
        ConfigKey("tls-ca-file", .string),
        ConfigKey("tls-cert-file", .string),
        ConfigKey("tls-key-file", .string),
        ConfigKey("tls-insecure", .boolean),
        ConfigKey("outbox", .string),
        ConfigKey("outbox-max", .integer),
        ConfigKey("drain-timeout", .number),
        ConfigKey("max-in-flight", .integer),
        ConfigKey("receipt-timeout", .number),
        ConfigKey("profile", .word(["active", "significant"])),
        ConfigKey("battery-low", .integer),
        ConfigKey("battery-hysteresis", .integer),
        ConfigKey("battery-interval", .number),
        ConfigKey("power-supply-path", .string),
        ConfigKey("metrics-port", .integer),
        ConfigKey("metrics-address", .string),
        ConfigKey("log-level", .word(["trace", "debug", "info", "notice", "warning", "error", "critical"])),
    ] + OwnTracksOptions.configKeys + PlacesOptions.configKeys + PolicyConfigKeys.all
}
