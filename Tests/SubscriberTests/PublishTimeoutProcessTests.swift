import Foundation
import Testing
import WhereaboutsTestSupport
@testable import Subscriber

/// `--publish-timeout` on `whereabouts-sub`: the flag the publisher has, spelled and checked the
/// same, and what it changes: how long a view's publish waits for a broker that stopped answering
/// before the subscriber gives up on it (and publishes it again later).
@Suite("whereabouts-sub --publish-timeout", .serialized, .enabled(if: ReceiptBinaries.built))
struct PublishTimeoutProcessTests {
    static func circles(_ members: [String]) -> String {
        "circles:\n  - id: family\n    members:\n" + members.map { "      - {user: \($0), device: phone}\n" }.joined()
    }

    @Test("Both programs refuse a publish timeout outside 1 to 3600 s with the same message")
    func sameRuleBothPrograms() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "publish-timeout-flag")
        defer { try? FileManager.default.removeItem(at: directory) }
        let circlesPath = directory.appendingPathComponent("circles.yaml").path
        try Self.circles(["alice"]).write(toFile: circlesPath, atomically: true, encoding: .utf8)
        for value in ["0.5", "3601", "nan"] {
            let subscriber = try await ToolRun.run(ReceiptBinaries.subscriber!.path, ["--circles", circlesPath, "--publish-timeout", value])
            let publisher = try await ToolRun.run(
                ReceiptBinaries.publisher!.path, ["--source", "sim:still", "--user", "u", "--device", "d", "--publish-timeout", value])
            let expected = "--publish-timeout must be 1 to 3600 seconds (default 10), not \(Double(value)!)."
            #expect(subscriber.status == 2 && publisher.status == 2, "\(value): \(subscriber.stderr) / \(publisher.stderr)")
            #expect(subscriber.stderr.contains(expected), "\(subscriber.stderr)")
            #expect(publisher.stderr.contains(expected), "\(publisher.stderr)")
        }
        let help = try await ToolRun.run(ReceiptBinaries.subscriber!.path, ["run", "--help"])
        #expect(help.stdout.contains("--publish-timeout <seconds>"))
    }

    @Test("A view published to a frozen broker gives up after --publish-timeout 2 (not 10 s), and is published again once the broker answers")
    func viewPublishGivesUpInTime() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "publish-timeout-sub")
        defer { try? FileManager.default.removeItem(at: directory) }
        let broker = try await Broker.start()
        let circlesURL = directory.appendingPathComponent("circles.yaml")
        try Self.circles(["alice"]).write(to: circlesURL, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("sub.log")
        let subscriber = try ChildProcess.spawn(ReceiptBinaries.subscriber!.path, [
            "--circles", circlesURL.path, "--broker", "mqtt://127.0.0.1:\(broker.port)", "--client-id", "sub-publish-timeout",
            "--state-file", "none", "--view-interval", "0.2", "--publish-timeout", "2",
        ], logFile: log)
        let probe = try await ViewProbe.start(broker: broker)
        _ = try await probe.wait("the first view", timeout: .seconds(30)) { $0.views["family"] }
        try await ReceiptProcessTests.waitForLog(log, "Announced receipts for the members' devices.")

        // The broker keeps the connection open and answers nothing (keep-alive 30 s: the
        // connection is not given up for 45 s); a second member makes a new view to publish.
        await broker.pause()
        let frozenAt = ContinuousClock.now
        try Self.circles(["alice", "bob"]).write(to: circlesURL, atomically: true, encoding: .utf8)
        try await ReceiptProcessTests.waitForLog(log, "Could not publish; the view will be published again.", timeout: .seconds(30))
        let gaveUpAfter = ContinuousClock.now - frozenAt
        // The reload is seen within 2 s (its poll), the view goes out within 0.2 s of it, and the
        // publish gives up 2 s later: about 2-4.5 s. With the default (10 s) it would be 10-12.5.
        #expect(gaveUpAfter < .seconds(9), "gave up after \(gaveUpAfter)")

        await broker.resume()
        let view = try await probe.wait("the view with bob", timeout: .seconds(30)) { snapshot in
            snapshot.views["family"].flatMap { $0.members.contains { $0.user == "bob" } ? $0 : nil }
        }
        #expect(view.members.count == 2)
        subscriber.signal(SIGTERM)
        #expect(await subscriber.waitForExit() == 0)
        await probe.client.disconnect()
        await broker.stop()
    }
}
