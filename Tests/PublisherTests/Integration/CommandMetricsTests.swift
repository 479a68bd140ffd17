import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The real whereabouts-pub binary: wrongly typed and retained commands, the source's rejections
/// and the battery gauge as a scraper sees them on `/metrics`.
@Suite("Publisher commands and metrics", .serialized, .enabled(if: PublisherProcess.executable != nil))
struct CommandMetricsTests {
    static let topic = "owntracks/alice/phone"

    /// The drive fixture with two track points that have no `<time>` (rejected by the GPX source).
    func trackWithUntimedPoints(in dir: URL) throws -> URL {
        let fixture = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx")
        var text = try String(contentsOf: fixture, encoding: .utf8)
        let untimed = #"<trkpt lat="52.6638000" lon="-8.6266000"><ele>20.0</ele></trkpt>"# + "\n"
        let first = try #require(text.range(of: "<trkpt"))
        text.insert(contentsOf: untimed + untimed, at: first.lowerBound)
        let url = dir.appendingPathComponent("drive-untimed.gpx")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("monitoring true is rejected, a retained command is counted, the source's rejections are on /metrics, no battery means no battery gauge")
    func commandsAndMetrics() async throws {
        let broker = try await Broker.start()
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-metrics")
        let track = try trackWithUntimedPoints(in: dir)
        // A retained command waits on the broker before the publisher subscribes.
        let commander = MQTTClient(configuration: broker.clientConfiguration(clientID: "commander"), logger: .test("cmd"))
        try await commander.connect()
        try await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"reportLocation"}"#.utf8), retain: true)
        let port = try FreePort.find()
        let pub = try PublisherProcess(
            arguments: ["--source", "gpx:\(track.path)", "--replay-speed", "1", "--user", "alice", "--device", "phone",
                        "--broker", "mqtt://\(broker.host):\(broker.port)", "--outbox", dir.appendingPathComponent("o.sqlite").path,
                        "--power-supply-path", dir.appendingPathComponent("no-sysfs").path, "--battery-interval", "1",
                        "--metrics-port", "\(port)", "--log-level", "debug"],
            logFile: dir.appendingPathComponent("pub.log"))
        try await pub.waitForLog("Ignored a retained command")
        try await commander.publish(to: Self.topic + "/cmd", payload: Data(#"{"_type":"cmd","action":"setConfiguration","configuration":{"monitoring":true}}"#.utf8))
        try await pub.waitForLog("Command rejected.")
        try await pub.waitForLog("No battery found")
        #expect(!pub.log.contains("Profile switched."), "a boolean is not a monitoring mode\n\(pub.log)")
        let metrics = try await scrapeMetrics(port: port)
        #expect(metricValue(#"whereabouts_pub_commands_total{result="retained"}"#, in: metrics) == 1, "\(metrics)")
        #expect(metricValue(#"whereabouts_pub_commands_total{result="rejected"}"#, in: metrics) == 1)
        #expect(metricValue(#"whereabouts_pub_commands_total{result="accepted"}"#, in: metrics) == 0)
        #expect(metricValue(#"whereabouts_pub_source_rejected_total{reason="missing-time"}"#, in: metrics) == 2)
        #expect(metricValue("whereabouts_pub_profile_significant", in: metrics) == 0)
        #expect(!metrics.contains("whereabouts_pub_battery_percent"), "no battery: the gauge is absent, not 0")
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(20)) == 0, "\(pub.log.suffix(3000))")
        try await commander.publish(to: Self.topic + "/cmd", payload: Data(), retain: true)
        await commander.disconnect()
        await broker.stop()
    }
}
