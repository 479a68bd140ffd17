import ArgumentParser
import CommandLineSupport

/// `whereabouts-sub`: keeps each circle's membership view and serves it to dashboards.
@main
struct WhereaboutsSub: AsyncParsableCommand {
    /// Runs the command; an invalid command line exits with status 2.
    static func main() async { await mainWithUsageExitStatus() }

    static let configuration = CommandConfiguration(
        commandName: "whereabouts-sub",
        abstract: "Keep each circle's live view from MQTT and serve it to dashboards.",
        discussion: """
            Without a subcommand, `whereabouts-sub` runs the subscriber (`whereabouts-sub run`): it \
            subscribes to the OwnTracks topics of every member of its circles, publishes each circle's \
            view as retained JSON on <view-prefix>/<id>/view, and membership events on \
            <view-prefix>/<id>/events. `whereabouts-sub acl` writes the mosquitto ACL that makes the \
            broker enforce who may see which circle; `whereabouts-sub dynsec` also binds every client id \
            to its own account through mosquitto's dynamic security plugin. See docs/subscriber.md.
            """,
        version: "0.1.0",
        subcommands: [RunCommand.self, ACLCommand.self, DynsecCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
