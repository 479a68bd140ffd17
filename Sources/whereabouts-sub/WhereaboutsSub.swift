import ArgumentParser

/// `whereabouts-sub`: keeps each circle's membership view and serves it to dashboards.
@main
struct WhereaboutsSub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whereabouts-sub",
        abstract: "Keep each circle's live view from MQTT and serve it to dashboards.",
        version: "0.1.0"
    )

    func run() async throws {
        throw CleanExit.message("whereabouts-sub is not implemented yet.")
    }
}
