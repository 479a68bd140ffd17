import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// The real `whereabouts-sub --history` against a real mosquitto, killed with SIGKILL: the
/// outliers it had stored aside are all there after the kill, and the restarted subscriber keeps
/// the ones sent while it was down aside too.
@Suite("whereabouts-sub process: outliers kept aside across kill -9")
struct OutliersKillProcessTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    @Test("Outliers stored aside before a kill -9 are all there after it; the restarted subscriber keeps new ones aside", .enabled(if: executable != nil))
    func outliersSurviveKill() async throws {
        let rig = try await HistoryProcessRig.start(clientID: "sub-outliers", extraArguments: ["--max-accuracy", "500"])
        let broker = rig.broker, historyPath = rig.historyPath
        let publisher = try await MQTTClient.connected(to: broker)
        let dave = MemberID(user: "Dave", device: "handheld")
        let now = Int(Date().timeIntervalSince1970)
        func publish(_ payloads: [String]) async throws {
            for payload in payloads {
                try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(payload.utf8), qos: .atLeastOnce, retain: false)
            }
        }
        @Sendable func aside() async throws -> [String] {
            let reader = try HistoryStore(path: historyPath, logger: Build.quietLogger)
            return try await reader.rejectedLocations(of: dave, from: 0, to: .max, limit: 1000).map { "\($0.location.fix.tst) \($0.reason)" }
        }
        /// A poor-accuracy fix as the Android app sends it (`acc` 800 with --max-accuracy 500).
        func coarse(_ tst: Int) -> String {
            OwnTracksPayloads.androidLocation(tst: tst).replacingOccurrences(of: #""acc":13"#, with: #""acc":800"#)
        }

        let (first, _) = try await rig.spawnSubscribed("first")
        let before = (0..<40).map { now - 400 + $0 * 2 }
        try await publish([OwnTracksPayloads.androidLocation(tst: now - 500)] + before.map(coarse) + [OwnTracksPayloads.androidLocation(tst: now + 7_200)])
        let expected = before.map { "\($0) poor_accuracy" } + ["\(now + 7_200) future_timestamp"]
        try await waitUntil("the 41 outliers stored aside", timeout: .seconds(20)) { try await aside().count == 41 }
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }
        #expect(try await aside() == expected, "everything stored aside before the kill is intact")

        // Sent while down: the persistent session keeps them; the restarted subscriber keeps them aside.
        let during = (0..<10).map { now - 300 + $0 }
        try await publish(during.map(coarse))
        let second = try ChildProcess.spawn(Self.executable!.path, rig.arguments, logFile: rig.directory.appendingPathComponent("second.log"))
        try await waitUntil("the outliers sent while down stored aside", timeout: .seconds(20)) { try await aside().count == 51 }
        #expect(try await aside().sorted() == (expected + during.map { "\($0) poor_accuracy" }).sorted())
        let reader = try HistoryStore(path: historyPath, logger: Build.quietLogger)
        #expect(try await reader.locations(of: dave, from: 0, to: .max, limit: 100).map(\.fix.tst) == [now - 500], "no outlier among the locations")
        second.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(10), "the subscriber to exit") { await second.waitForExit() } == 0)
        await publisher.disconnect()
        await broker.stop()
    }
}
