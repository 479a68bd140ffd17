import ArgumentParser
import EvalKit
import WhereaboutsCore

/// `--heartbeat`: count the publisher's heartbeats as messages and radio wake-ups.
struct HeartbeatOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Count a heartbeat (a small presence message, one radio wake-up and its bytes) whenever a policy sent nothing for this many seconds, as whereabouts-pub does with its --heartbeat; 0 counts reports only.",
        valueName: "seconds"))
    var heartbeat: Double = HeartbeatModel.defaultInterval

    func validate() throws {
        guard heartbeat.isFinite, heartbeat == 0 || (10...86_400).contains(heartbeat) else {
            throw ValidationError("--heartbeat must be 0 (off) or 10 to 86400 seconds, as whereabouts-pub's, not \(heartbeat).")
        }
    }

    /// The evaluator with this heartbeat.
    func evaluator() -> Evaluator {
        var evaluator = Evaluator()
        if heartbeat > 0 { evaluator.heartbeat = HeartbeatModel(interval: heartbeat, wire: evaluator.wire) }
        return evaluator
    }
}
