import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// The real `whereabouts-sub` with `--history`, killed with SIGKILL and restarted, against a real
/// mosquitto: every committed location survives, and what was published while it was down is
/// stored after the restart, in `tst` order.
@Suite("whereabouts-sub process: history across kill -9")
struct HistoryProcessTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    @Test("Locations committed before a kill -9 are all there after the restart, with the ones sent while it was down", .enabled(if: executable != nil))
    func historySurvivesKill() async throws {
        let rig = try await HistoryProcessRig.start(clientID: "sub-history")
        let broker = rig.broker, historyPath = rig.historyPath
        let publisher = try await MQTTClient.connected(to: broker)
        let dave = MemberID(user: "Dave", device: "handheld")
        let now = Int(Date().timeIntervalSince1970)
        func publish(_ tsts: [Int]) async throws {
            for tst in tsts {
                try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: tst).utf8),
                                            qos: .atLeastOnce, retain: false)
            }
        }
        @Sendable func stored() async throws -> [Int] {
            let reader = try HistoryStore(path: historyPath, logger: Build.quietLogger)
            return try await reader.locations(of: dave, from: 0, to: .max, limit: 1000).map(\.fix.tst)
        }

        let (first, _) = try await rig.spawnSubscribed("first")
        // 50 fixes, newest first in every second pair: out of order on purpose.
        let before = (0..<50).map { now - 200 + ($0 % 2 == 0 ? $0 + 1 : $0 - 1) }
        try await publish(before)
        try await waitUntil("the 50 fixes committed", timeout: .seconds(20)) { try await stored().count == 50 }
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }

        // Sent while the subscriber is down: the persistent session keeps them for it.
        let during = (50..<70).map { now - 200 + $0 }
        try await publish(during.reversed())
        #expect(try await stored() == before.sorted(), "everything committed before the kill is intact")

        let secondLog = rig.directory.appendingPathComponent("second.log")
        let second = try ChildProcess.spawn(Self.executable!.path, rig.arguments, logFile: secondLog)
        try await waitUntil("the fixes sent while down committed", timeout: .seconds(20)) { try await stored().count == 70 }
        #expect(try await stored() == (before + during).sorted())
        // A duplicate of a stored fix (QoS 1 redelivery) is stored once. Messages arrive in order,
        // so once the fix sent after it is committed, the duplicate was handled.
        try await publish([before[3], now - 100])
        try await waitUntil("the next fix committed", timeout: .seconds(20)) { try await stored().contains(now - 100) }
        #expect(try await stored().count == 71)

        second.signal(SIGTERM)
        let exit = try await withTimeout(.seconds(10), "the subscriber to exit") { await second.waitForExit() }
        #expect(exit == 0)
        let log = (try? String(contentsOf: secondLog, encoding: .utf8)) ?? ""
        #expect(log.contains("History opened.") && log.contains("History writer stopped."), "log:\n\(log)")
        await publisher.disconnect()
        await broker.stop()
    }
}
