import ArgumentParser
import CommandLineDialect

/// Where the members publish and where the subscriber's views live: the topic layout that `run`,
/// `acl`, `dynsec` and `invite` must agree on, declared once so that all four spell and default
/// it alike (`--topic-prefix`, `--view-prefix`, and the config keys of the same names).
struct TopicPrefixOptions: ParsableArguments {
    @Option(help: "The topic prefix of the circle views: views go to <prefix>/<id>/view and events to <prefix>/<id>/events.")
    var viewPrefix: String = "whereabouts/circles"

    @Option(help: "The first topic level of the members' OwnTracks topics.")
    var topicPrefix: String = "owntracks"

    /// The config-file keys of these flags.
    static let configKeys: [ConfigKey] = [ConfigKey("view-prefix", .string), ConfigKey("topic-prefix", .string)]
}
