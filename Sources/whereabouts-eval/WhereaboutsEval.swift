import ArgumentParser

/// `whereabouts-eval`: replays recorded tracks through reporting policies and reports their cost.
@main
struct WhereaboutsEval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whereabouts-eval",
        abstract: "Replay recorded tracks through reporting policies and measure cost and error.",
        version: "0.1.0"
    )

    func run() async throws {
        throw CleanExit.message("whereabouts-eval is not implemented yet.")
    }
}
