import Foundation
import Testing
import WhereaboutsTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// An idle `whereabouts-sub` with its dashboard on and login required (`--http-port`, `--users`),
/// no browser connected, lets the CPU sleep: the access watch waits for a WebSocket to open
/// instead of looking at the users file four times a second (docs/dashboard.md, "Wake-ups while
/// idle"). The real binary against a real mosquitto; counted as in ``SubscriberIdleTests``.
@Suite("whereabouts-sub with its dashboard, while idle", .serialized, .enabled(if: ReceiptBinaries.subscriber != nil))
struct DashboardIdleTests {
    /// Most voluntary context switches per second, all threads together. Measured on the 2-core
    /// build machine (debug build, load 8-10): 22.5 before the access watch waited for a WebSocket
    /// (14.5 of them its 250 ms poll), 8 after (the subscriber's own 2 to 3, and Hummingbird's
    /// 1 s date-header timer, which every Hummingbird server runs).
    static let idleBound = 14.0

    /// A users file with one account (`alice`, a cost-4 hash: for tests only).
    static let users = """
        users:
          "alice":
            password: "$2b$04$FGbZvATV3fGN5v.2gm/NYOJwQ5J/p0IdJVRstW5X6aXhnG2VeGlHG"
        """

    @Test("Idle with the dashboard on and login required, no browser, the subscriber wakes fewer than 14 times a second")
    func idleWakeUps() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "dash-idle")
        let broker = try await Broker.start()
        try SubscriberIdleTests.circles.write(to: directory.appendingPathComponent("circles.yaml"), atomically: true, encoding: .utf8)
        try Self.users.write(to: directory.appendingPathComponent("users.yaml"), atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("sub.log")
        let port = try FreePort.find()
        let subscriber = try ChildProcess.spawn(ReceiptBinaries.subscriber!.path, [
            "--circles", directory.appendingPathComponent("circles.yaml").path, "--broker", "mqtt://127.0.0.1:\(broker.port)",
            "--client-id", "sub-dash-idle", "--state-file", directory.appendingPathComponent("sub.status.json").path,
            "--history", directory.appendingPathComponent("history.sqlite").path, "--history-days", "0",
            "--http-port", "\(port)", "--users", directory.appendingPathComponent("users.yaml").path,
        ], logFile: log)
        try await waitUntil("the dashboard listening and the receipts announced") {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.contains("Dashboard listening") && text.contains("Announced receipts for the members' devices.")
        }
        try await Task.sleep(for: .seconds(3))  // settling: start-up work ends

        let wakeUps = try await WakeUpCount.measure(pid: subscriber.pid, over: .seconds(8))
        #expect(wakeUps.before > 0, "the counts are read")
        #expect(wakeUps.rate < Self.idleBound, "\(wakeUps.count) voluntary context switches in \(wakeUps.seconds) s")
        #expect(subscriber.isRunning)
        subscriber.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await subscriber.waitForExit() }
        await broker.stop()
    }
}
