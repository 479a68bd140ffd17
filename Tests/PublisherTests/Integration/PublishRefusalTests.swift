import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The real whereabouts-pub binary against a mosquitto whose ACL denies its account the topic:
/// under MQTT 5 the broker says "not authorized" in every PUBACK, and the publisher keeps the
/// reports (MQTT 3.1.1 would acknowledge them as delivered, and the outbox would delete them).
@Suite("Publisher and a broker that refuses its reports", .serialized, .enabled(if: PublisherProcess.executable != nil))
struct PublishRefusalTests {
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx").path

    @Test("Reports refused by the ACL stay in the outbox, are counted by reason and logged with topic, account and what to do; once the ACL is fixed they are delivered")
    func refusedUntilTheACLIsFixed() async throws {
        let broker = try await Broker.start(Broker.Options(
            allowAnonymous: false, users: ["Eve": "eve-pw", "watch": "watch-pw"],
            acl: "user Eve\ntopic read owntracks/#\nuser watch\ntopic read owntracks/#\n", persistence: true))
        let dir = try TestPaths.makeTemporaryDirectory(prefix: "pub-refused")
        let passwordFile = dir.appendingPathComponent("password")
        try "eve-pw\n".write(to: passwordFile, atomically: true, encoding: .utf8)

        // A persistent MQTT 5 watcher: it gets every report the broker takes, across its restart.
        let watcher = broker.client("watch", credentials: .init(username: "watch", password: "watch-pw")) {
            $0.protocolVersion = .v5
            $0.cleanSession = false
        }
        let messages = watcher.messages
        try await watcher.connect()
        try await watcher.subscribe(to: "owntracks/+/phone", qos: .atLeastOnce)

        let metricsPort = try FreePort.find()
        let pub = try PublisherProcess(arguments: [
            "--source", "gpx:\(Self.track)", "--replay-speed", "max", "--user", "Eve", "--device", "phone",
            "--broker", "mqtt://127.0.0.1:\(broker.port)", "--username", "Eve", "--password-file", passwordFile.path,
            "--outbox", dir.appendingPathComponent("o.sqlite").path, "--metrics-port", "\(metricsPort)",
            "--policy", "interval", "--interval", "2", "--log-level", "info",
            "--power-supply-path", dir.appendingPathComponent("no-sysfs").path,
        ], logFile: dir.appendingPathComponent("pub.log"))

        // The error names the account and the topic and says what to do.
        try await pub.waitForLog("The broker's ACL does not let user 'Eve' publish to 'owntracks/", timeout: .seconds(30))
        try await pub.waitForLog("The position source ended", timeout: .seconds(60))
        let line = try #require(pub.log.split(separator: "\n").first { $0.contains("does not let user 'Eve'") })
        #expect(line.contains("whereabouts-sub acl") && line.contains("dynsec") && line.contains("stays in the outbox"))
        #expect(line.contains("not_authorized"))

        // Every report is kept and the refusals are counted by reason.
        try await waitUntil("every report committed and kept", timeout: .seconds(30), interval: .milliseconds(200)) {
            let text = try await scrapeMetrics(port: metricsPort)
            let reports = metricValue("whereabouts_pub_reports_total", in: text) ?? 0
            return reports > 0 && metricValue("whereabouts_pub_outbox_depth", in: text) == reports
                && (metricValue(#"whereabouts_pub_publish_refused_total{reason="not_authorized"}"#, in: text) ?? 0) >= 1
        }
        let text = try await scrapeMetrics(port: metricsPort)
        let reports = try #require(metricValue("whereabouts_pub_reports_total", in: text))  // the source has ended
        #expect(metricValue("whereabouts_pub_outbox_depth", in: text) == reports)
        let refusedBefore = try #require(metricValue(#"whereabouts_pub_publish_refused_total{reason="not_authorized"}"#, in: text))
        // Retried with backoff, not in a tight loop: the pause doubles from 1 s up to 60 s.
        let logged = pub.log.components(separatedBy: "does not let user 'Eve'").count - 1
        #expect(logged <= 8, "\(logged) refused windows logged")
        #expect(pub.process.isRunning, "the publisher keeps running while its reports are refused")

        // The ACL fixed, the broker restarted: the kept reports go out and the publisher ends.
        try "user Eve\ntopic readwrite owntracks/#\nuser watch\ntopic read owntracks/#\n"
            .write(to: broker.directory.appendingPathComponent("acl"), atomically: true, encoding: .utf8)
        try await broker.restart()
        #expect(try await pub.waitForExit(timeout: .seconds(120)) == 0, "exits once the outbox is drained")
        #expect(refusedBefore >= 1)

        // Every kept report reaches the watcher (a will of the connection the restart cut is no location).
        var delivered = Set<Int>()
        while delivered.count < Int(reports) {
            let message = try await messages.next(timeout: .seconds(30))
            if let location = try? JSONDecoder().decode(LocationMessage.self, from: message.payload) { delivered.insert(location.tst) }
        }
        #expect(delivered.count == Int(reports))
        await watcher.disconnect()
        await broker.stop()
    }
}
