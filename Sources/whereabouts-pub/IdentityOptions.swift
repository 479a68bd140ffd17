import ArgumentParser
import CommandLineDialect

/// Who is publishing.
struct IdentityOptions: ParsableArguments {
    @Option(help: "The user name, the second level of the default topic owntracks/<user>/<device>, used exactly as given. With --username it must be that broker account (or whereabouts-<user>-<device> under dynamic security), unless --topic-base is given.")
    var user: String?

    @Option(help: "The device name, the third level of the default topic owntracks/<user>/<device>.")
    var device: String?

    @Option(help: "The two-character tracker id shown on maps. Defaults to the last two characters of the device name.")
    var tid: String?

    @Option(help: ArgumentHelp(
        "The topic location messages are published to. Defaults to owntracks/<user>/<device>, the names exactly as given (upper case included, as the OwnTracks apps do); presence goes to <base>/presence and commands are read from <base>/cmd.",
        valueName: "topic"))
    var topicBase: String?

    /// The config-file keys of these flags.
    static let configKeys: [ConfigKey] = [
        ConfigKey("user", .string), ConfigKey("device", .string), ConfigKey("tid", .string), ConfigKey("topic-base", .string),
    ]
}
