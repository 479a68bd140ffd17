import CommandLineDialect
import CommandLineSupport
import Foundation
import Publisher
import WhereaboutsCore

/// The harnesses of the publisher: commands from the broker and the config file.
enum PublisherHarnesses {
    static func command(_ input: [UInt8]) {
        _ = try? CommandMessage(payload: Data(input))
    }

    /// One key of every value kind the publisher's config file knows (names from
    /// `whereabouts-pub`'s key lists). Built per call: LeakSanitizer reports the array of a lazily
    /// initialised global as a leak at exit.
    private static func keys() -> [ConfigKey] { [
        ConfigKey("broker", .string),
        ConfigKey("qos", .integer),
        ConfigKey("retain", .boolean),
        ConfigKey("drain-timeout", .number),
        .word("profile", MonitoringMode.self),
        ConfigKey("replay-speed", .numberOrWord(["max"])),
        ConfigKey("significant-thresholds", .numberList),
    ] }

    static func config(_ input: [UInt8]) {
        guard let file = try? ConfigFile(text: String(decoding: input, as: UTF8.self), path: "fuzz.yaml", keys: keys()) else {
            return
        }
        require(file.arguments.first.map { $0.hasPrefix("--") } ?? true, "arguments do not start with a flag")
    }
}
