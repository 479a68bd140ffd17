import Foundation
import WhereaboutsTestSupport

/// What the process tests of the history share: a real mosquitto, a fresh folder holding the
/// circles file (``OwnTracksPayloads/circles``) and the history's path, and the arguments that run
/// the real `whereabouts-sub` with that history, kept for good (`--history-days 0`).
struct HistoryProcessRig {
    let broker: Broker
    let directory: URL
    /// The history file, `<directory>/history.sqlite`.
    let historyPath: String
    /// `whereabouts-sub`'s arguments: the circles file, the broker, the client id, no state file,
    /// the history, then the test's own; a test may add more before the next start.
    var arguments: [String]

    /// Starts the broker and writes the circles file in a new folder named after `prefix`.
    static func start(clientID: String, prefix: String = "whereabouts-test", extraArguments: [String] = []) async throws -> HistoryProcessRig {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory(prefix: prefix)
        let circles = directory.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let historyPath = directory.appendingPathComponent("history.sqlite").path
        let arguments = [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", clientID,
            "--state-file", "none", "--history", historyPath, "--history-days", "0",
        ] + extraArguments
        return HistoryProcessRig(broker: broker, directory: directory, historyPath: historyPath, arguments: arguments)
    }

    /// Starts `whereabouts-sub` with ``arguments``, logging to `<directory>/<name>.log`, and
    /// waits until it has subscribed to the circles' members; returns the process and its log.
    func spawnSubscribed(_ name: String) async throws -> (process: ChildProcess, log: URL) {
        let log = directory.appendingPathComponent("\(name).log")
        let process = try ChildProcess.spawn(HistoryProcessTests.executable!.path, arguments, logFile: log)
        try await waitUntil("\(name): subscribed") {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Subscribed to the circles' members.")
        }
        return (process, log)
    }
}
