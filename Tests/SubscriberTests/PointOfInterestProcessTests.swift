import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// An iOS location with a point-of-interest photo (about 40 KB, over the default `--max-payload`
/// of 16 KiB) as the retained message of its topic, read by the real `whereabouts-sub` when it
/// starts (issue 24, item 7). Before, it was rejected as oversize, and a restarted subscriber had
/// no position for the member at all.
@Suite("whereabouts-sub process: an iOS point-of-interest photo keeps the position")
struct PointOfInterestProcessTests {
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    @Test("The retained iOS location with a photo is live and stored after a (re)start, the photo counted as dropped", .enabled(if: executable != nil))
    func retainedPhotoLocation() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let circles = directory.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let historyPath = directory.appendingPathComponent("history.sqlite").path
        let port = try FreePort.find()

        // The app sent its point of interest while no subscriber ran: only the retained message is left.
        let now = Int(Date().timeIntervalSince1970)
        let payload = OwnTracksPayloads.iosPointOfInterest(tst: now - 5)
        #expect(payload.utf8.count > 16 * 1024)
        let app = try await MQTTClient.connected(to: broker)
        try await app.publish(to: "owntracks/eve/iphone", payload: Data(payload.utf8), qos: .atLeastOnce, retain: true)
        await app.disconnect()

        let probe = try await ViewProbe.start(broker: broker)
        let log = directory.appendingPathComponent("sub.log")
        let subscriber = try ChildProcess.spawn(Self.executable!.path, [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-poi",
            "--view-interval", "0.1", "--state-file", "none", "--history", historyPath, "--history-days", "0",
            "--http-port", "\(port)",
        ], logFile: log)
        defer { subscriber.signal(SIGKILL) }
        let eve = try await probe.member("friends", "eve", "iphone") { $0.fix?.tst == now - 5 }
        #expect(eve.fix?.lat == 52.6641 && eve.fix?.lon == -8.6259)

        // Stored in the history.
        try await waitUntil("the fix committed to the history", timeout: .seconds(20)) {
            let reader = try HistoryStore(path: historyPath, logger: Build.quietLogger)
            return try await reader.locations(of: MemberID(user: "eve", device: "iphone"), from: 0, to: .max, limit: 10).map(\.fix.tst) == [now - 5]
        }
        // The photo is counted as a dropped field; nothing is counted as rejected.
        try await waitUntil("the subscriber's HTTP port") { FreePort.isAccepting(port) }
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/metrics")), timeoutInterval: 10)
        request.httpMethod = "GET"
        let (body, _) = try await URLSession.shared.data(for: request)
        let metrics = String(decoding: body, as: UTF8.self)
        #expect(metrics.contains(#"whereabouts_sub_fields_dropped_total{field="image"} 1"#), "\(metrics)")
        #expect(!metrics.contains(#"reason="oversize""#), "\(metrics)")

        subscriber.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(10), "the subscriber to exit") { await subscriber.waitForExit() } == 0)
        await probe.stop()
        await broker.stop()
    }
}
