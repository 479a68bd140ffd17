import CommandLineSupport
import Publisher

/// Config keys of the policy and filter flags shared with whereabouts-eval (`PolicyOptions`).
enum PolicyConfigKeys {
    static let all: [ConfigKey] = [
        ConfigKey("policy", .word(["seed", "interval", "distance", "significant", "dead-reckoning", "bounded"])),
        ConfigKey("epsilon", .number),
        ConfigKey("max-silence", .integer),
        ConfigKey("stationary-speed", .number),
        ConfigKey("fit-tolerance", .number),
        ConfigKey("min-speed", .number),
        ConfigKey("min-filter", .number),
        ConfigKey("min-interval", .number),
        ConfigKey("interval", .number),
        ConfigKey("distance", .number),
        ConfigKey("significant-distance", .number),
        ConfigKey("significant-interval", .number),
        ConfigKey("max-age", .number),
        ConfigKey("max-accuracy", .number),
        ConfigKey("max-speed", .number),
        ConfigKey("future-tolerance", .number),
    ]
}
