import CommandLineSupport

/// The keys a `whereabouts-sub --config` file accepts: every long flag of `whereabouts-sub run`
/// except `--config`, `--help` and `--version` (and the broker flags' old aliases), with the kind
/// of value it takes. `allowed-host` and `allowed-origin` take one value in the file; give more on
/// the command line.
enum SubscriberConfigKeys {
    static let all: [ConfigKey] = [
        ConfigKey("circles", .string),
        ConfigKey("broker", .string),
        ConfigKey("broker-kind", .word(["mosquitto", "nats"])),
        ConfigKey("client-id", .string),
        ConfigKey("username", .string),
        ConfigKey("password-file", .string),
        ConfigKey("keep-alive", .integer),
        ConfigKey("tls-ca-file", .string),
        ConfigKey("tls-cert-file", .string),
        ConfigKey("tls-key-file", .string),
        ConfigKey("tls-insecure", .boolean),
        ConfigKey("http-port", .integer),
        ConfigKey("http-host", .string),
        ConfigKey("tiles", .string),
        ConfigKey("tiles-attribution", .string),
        ConfigKey("leaflet-dir", .string),
        ConfigKey("allowed-host", .string),
        ConfigKey("allowed-origin", .string),
        ConfigKey("users", .string),
        ConfigKey("secure-cookie", .boolean),
        ConfigKey("session-hours", .number),
        ConfigKey("view-prefix", .string),
        ConfigKey("topic-prefix", .string),
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
        ConfigKey("place-margin", .number),
        ConfigKey("place-dwell", .number),
        ConfigKey("state-file", .string),
        ConfigKey("history", .string),
        ConfigKey("history-days", .integer),
        ConfigKey("history-circle-days", .string),
        ConfigKey("history-max-mb", .integer),
        ConfigKey("shard", .string),
        ConfigKey("receipts", .boolean),
        ConfigKey("log-level", .word(["trace", "debug", "info", "notice", "warning", "error", "critical"])),
    ]
}
