import ArgumentParser

/// `whereabouts-pub`: reads a position source and publishes the fixes that matter over MQTT.
@main
struct WhereaboutsPub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whereabouts-pub",
        abstract: "Publish the positions of this device to an MQTT broker, OwnTracks-compatible.",
        version: "0.1.0"
    )

    func run() async throws {
        throw CleanExit.message("whereabouts-pub is being wired up (issue 4).")
    }
}
