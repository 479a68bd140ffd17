import ArgumentParser
import CommandLineDialect
import CommandLineSupport

/// `whereabouts-sub`: keeps each circle's membership view and serves it to dashboards.
@main
struct WhereaboutsSub: AsyncParsableCommand {
    /// Reads the config file (if any) for `run`, then parses it followed by the command line, so
    /// flags win; an invalid command line or config file exits with status 2.
    static func main() async {
        await mainWithUsageExitStatus(preparingArguments: { arguments in
            // The file holds `run`'s options: expand it only for `run` (named or the default).
            if let first = arguments.first, ["acl", "dynsec", "passwd", "invite"].contains(first) { return arguments }
            if arguments.first == "run" {
                return ["run"] + (try ConfigArguments.expand(Array(arguments.dropFirst()), keys: RunCommand.configKeys))
            }
            return try ConfigArguments.expand(arguments, keys: RunCommand.configKeys)
        })
    }

    static let configuration = CommandConfiguration(
        commandName: "whereabouts-sub",
        abstract: "Keep each circle's live view from MQTT and serve it to dashboards.",
        discussion: """
            Without a subcommand, `whereabouts-sub` runs the subscriber (`whereabouts-sub run`): it \
            subscribes to the OwnTracks topics of every member of its circles, publishes each circle's \
            view as retained JSON on <view-prefix>/<id>/view, and membership events on \
            <view-prefix>/<id>/events. `whereabouts-sub acl` writes the mosquitto ACL that makes the \
            broker enforce who may see which circle; `whereabouts-sub dynsec` also binds every client id \
            to its own account through mosquitto's dynamic security plugin; `whereabouts-sub passwd` sets a \
            dashboard account's password in the users file (--users); `whereabouts-sub invite` sets up a \
            member's OwnTracks app in one scan (docs/owntracks.md). See docs/subscriber.md.
            """,
        version: "0.1.0",
        subcommands: [RunCommand.self, ACLCommand.self, DynsecCommand.self, PasswdCommand.self, InviteCommand.self],
        defaultSubcommand: RunCommand.self
    )
}
