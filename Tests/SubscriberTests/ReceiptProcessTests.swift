import Foundation
import Testing
@testable import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// End-to-end receipts (docs/receipts.md) with the real parts: the `whereabouts-pub` and
/// `whereabouts-sub` binaries against a real mosquitto, the subscriber keeping a history.
@Suite("Receipts end to end", .serialized, .enabled(if: ReceiptBinaries.built))
struct ReceiptProcessTests {
    static var publisherBinary: URL? { ReceiptBinaries.publisher }
    static var subscriberBinary: URL? { ReceiptBinaries.subscriber }
    static let track = TestPaths.fixtures.appendingPathComponent("publisher/drive-240s.gpx")
    static let eve = MemberID(user: "eve", device: "phone")
    static let circles = """
        circles:
          - id: family
            members:
              - user: eve
                device: phone
        """

    /// One test's folder, broker and files.
    struct Setup {
        let directory: URL
        let broker: Broker
        var circles: URL { directory.appendingPathComponent("circles.yaml") }
        var history: String { directory.appendingPathComponent("history.sqlite").path }
        var outbox: URL { directory.appendingPathComponent("outbox.sqlite") }
        var publisherLog: URL { directory.appendingPathComponent("pub.log") }

        init(prefix: String, options: Broker.Options = Broker.Options()) async throws {
            directory = try TestPaths.makeTemporaryDirectory(prefix: prefix)
            broker = try await Broker.start(options)
            try ReceiptProcessTests.circles.write(to: directory.appendingPathComponent("circles.yaml"), atomically: true, encoding: .utf8)
        }

        func startPublisher(speed: String, metricsPort: Int? = nil, extra: [String] = []) throws -> ChildProcess {
            let arguments = [
                "--source", "gpx:\(ReceiptProcessTests.track.path)", "--replay-speed", speed, "--user", "eve", "--device", "phone",
                "--broker", "mqtt://127.0.0.1:\(broker.port)", "--outbox", outbox.path, "--log-level", "debug",
                "--power-supply-path", directory.appendingPathComponent("no-sysfs").path,
                "--policy", "interval", "--interval", "2", "--receipt-timeout", "2", "--drain-timeout", "120",
            ] + (metricsPort.map { ["--metrics-port", "\($0)"] } ?? []) + extra
            return try ChildProcess.spawn(ReceiptProcessTests.publisherBinary!.path, arguments, logFile: publisherLog)
        }

        func startSubscriber(log name: String) throws -> (ChildProcess, URL) {
            let log = directory.appendingPathComponent(name)
            let arguments = [
                "--circles", circles.path, "--broker", "mqtt://127.0.0.1:\(broker.port)", "--client-id", "sub-receipts",
                "--state-file", "none", "--history", history, "--history-days", "0",
            ]
            return (try ChildProcess.spawn(ReceiptProcessTests.subscriberBinary!.path, arguments, logFile: log), log)
        }

        var publisherText: String { (try? String(contentsOf: publisherLog, encoding: .utf8)) ?? "" }

        /// The `tst` of every report the publisher committed, from its debug log.
        var committed: Set<Int> { loggedTimestamps(in: publisherText, of: "Report committed.") }

        /// The `tst` of every location of eve/phone in the history, duplicates included.
        func stored() async throws -> [Int] {
            guard FileManager.default.fileExists(atPath: history) else { return [] }
            let reader = try HistoryStore(path: history, logger: Build.quietLogger)
            return try await reader.locations(of: ReceiptProcessTests.eve, from: 0, to: .max, limit: 10_000).map(\.fix.tst)
        }
    }

    static func waitForLog(_ url: URL, _ text: String, timeout: Duration = .seconds(20)) async throws {
        try await waitUntil("'\(text)' in \(url.lastPathComponent)", timeout: timeout) {
            ((try? String(contentsOf: url, encoding: .utf8)) ?? "").contains(text)
        }
    }

    static func scrape(_ port: Int) async throws -> String {
        try await RawHTTP.send(port: port, request: "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").body
    }

    static func metric(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    @Test("An ACL that silently drops the reports: the publisher keeps every one unconfirmed; after the ACL is fixed all arrive and are confirmed")
    func aclDropsReports() async throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "receipt-acl-file")
        let aclFile = directory.appendingPathComponent("acl")
        // The issue's case: the ACL grants `Eve`, the device publishes as `eve`. MQTT 3.1.1 cannot
        // say "not authorized": mosquitto acknowledges and drops.
        let broken = "topic read owntracks/#\ntopic readwrite whereabouts/#\ntopic readwrite owntracks/Eve/#\n"
        try broken.write(to: aclFile, atomically: true, encoding: .utf8)
        let setup = try await Setup(prefix: "receipt-acl", options: Broker.Options(aclFile: aclFile.path, persistence: true))
        let (subscriber, subscriberLog) = try setup.startSubscriber(log: "sub.log")
        try await Self.waitForLog(subscriberLog, "Announced receipts for the members' devices.")
        let metricsPort = try FreePort.find()
        let publisher = try setup.startPublisher(speed: "max", metricsPort: metricsPort)
        try await Self.waitForLog(setup.publisherLog, "Subscribers confirm receipts")
        try await Self.waitForLog(setup.publisherLog, "The position source ended", timeout: .seconds(30))
        let reports = setup.committed
        #expect(reports.count > 50, "the recording gives about 120 reports")
        // Every report is held and counted unconfirmed; nothing reached the subscriber.
        try await waitUntil("every report counted unconfirmed", timeout: .seconds(20)) {
            guard let text = try? await Self.scrape(metricsPort) else { return false }
            return Self.metric("whereabouts_pub_unconfirmed", in: text) == Double(reports.count)
        }
        let during = try await Self.scrape(metricsPort)
        #expect(Self.metric("whereabouts_pub_confirmed_total", in: during) == 0)
        #expect(Self.metric("whereabouts_pub_receipt_subscribers", in: during) == 1)
        #expect((Self.metric("whereabouts_pub_unconfirmed_oldest_seconds", in: during) ?? 0) > 0)
        #expect(try await setup.stored().isEmpty, "the broker dropped every report")
        #expect(publisher.isRunning, "the publisher waits for its receipts")

        // Fixed: the broker restarted with the right ACL (its persistence keeps the sessions).
        try (broken + "topic readwrite owntracks/eve/#\n").write(to: aclFile, atomically: true, encoding: .utf8)
        try await setup.broker.restart()
        try await waitUntil("every report in the history", timeout: .seconds(60)) {
            Set(try await setup.stored()) == reports
        }
        // Once receipts cover every report the outbox is empty and the finished recording ends the
        // publisher; a report left unconfirmed would hold it until the drain timeout (120 s).
        let exit = try await withTimeout(.seconds(30), "the publisher to finish") { await publisher.waitForExit() }
        #expect(exit == 0)
        #expect(try await setup.stored().count == reports.count, "each report stored once")
        let log = setup.publisherText
        #expect(!log.contains("Drain timeout reached"), "\(log.suffix(2000))")
        // Under MQTT 3.1.1 the broker acknowledges and drops, and the receipts' timeout sends the
        // reports again; under MQTT 5 (mosquitto's default since the MQTT 5 work) it refuses them
        // with "not authorized", so they are never acknowledged and go out again after the
        // refusal back-off instead. Either way every report arrives once (checked above).
        #expect(log.contains("Receipts confirm every report again.") || log.contains("not authorized"))
        #expect(log.contains("Reports not confirmed by a receipt in time; publishing them again.") || log.contains("not authorized"))
        subscriber.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await subscriber.waitForExit() }
        await setup.broker.stop()
    }

    @Test("kill -9 of the subscriber while reports are in flight: after its restart every committed report is in the history, once, confirmed by receipts")
    func subscriberKilledMidStream() async throws {
        let setup = try await Setup(prefix: "receipt-kill", options: Broker.Options(persistence: true))
        let (first, firstLog) = try setup.startSubscriber(log: "sub-1.log")
        try await Self.waitForLog(firstLog, "Announced receipts for the members' devices.")
        let metricsPort = try FreePort.find()
        // 240 s of recording at 24x: about 12 reports a second for 10 s.
        let publisher = try setup.startPublisher(speed: "24", metricsPort: metricsPort)
        try await waitUntil("reports flowing into the history", timeout: .seconds(30)) { try await setup.stored().count >= 10 }
        // A random moment while reports keep coming: some are acknowledged by the broker (the
        // subscriber's library acknowledges before ingest) and not committed yet.
        try await Task.sleep(for: .milliseconds(Int.random(in: 200...3_000)))
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }
        let atKill = try await setup.stored().count
        try await Task.sleep(for: .seconds(1))
        let (second, _) = try setup.startSubscriber(log: "sub-2.log")
        let exit = try await withTimeout(.seconds(90), "the publisher to have every report confirmed") { await publisher.waitForExit() }
        #expect(exit == 0)
        let reports = setup.committed
        let stored = try await setup.stored()
        #expect(Set(stored) == reports, "missing: \(reports.subtracting(stored).sorted())")
        #expect(stored.count == reports.count, "no report stored twice")
        #expect(!setup.publisherText.contains("Drain timeout reached"), "every report was confirmed before the publisher ended")
        #expect(atKill < reports.count, "the kill came while reports were still coming")
        second.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await second.waitForExit() }
        await setup.broker.stop()
    }

    @Test("No subscriber that confirms receipts (only a plain MQTT client listens): the publisher falls back to the broker's PUBACK and says so once")
    func fallsBackWithoutReceipts() async throws {
        let setup = try await Setup(prefix: "receipt-none")
        let listener = try await MQTTClient.connected(to: setup.broker, clientID: "plain-listener")
        try await listener.subscribe(to: "owntracks/eve/phone", qos: .atLeastOnce)
        let messages = listener.messages
        let publisher = try setup.startPublisher(speed: "max")
        let exit = try await withTimeout(.seconds(60), "the publisher to finish") { await publisher.waitForExit() }
        #expect(exit == 0)
        let log = setup.publisherText
        let line = "No subscriber confirms receipts for owntracks/eve/phone; a broker PUBACK is the best confirmation available."
        #expect(log.components(separatedBy: line).count - 1 == 1, "said once:\n\(log.suffix(3000))")
        #expect(!log.contains("Drain timeout reached"), "acknowledged reports are deleted as before")
        #expect(!log.contains("publishing them again"))
        let received = try await messages.collect(setup.committed.count, timeout: .seconds(10))
        #expect(Set(received.compactMap { try? JSONDecoder().decode(LocationMessage.self, from: $0.payload).tst }) == setup.committed)
        // The stamp is there for any receiver, and harmless: the sequence starts at 1.
        let first = try #require(try JSONSerialization.jsonObject(with: received[0].payload) as? [String: Any])
        #expect(first["seq"] as? Int == 1 && (first["seq_epoch"] as? String)?.count == 16)
        await listener.disconnect()
        await setup.broker.stop()
    }

    @Test("A resent duplicate is stored once and answered with a receipt again")
    func duplicateStoredOnce() async throws {
        let setup = try await Setup(prefix: "receipt-dup")
        let watcher = try await MQTTClient.connected(to: setup.broker, clientID: "receipt-watcher")
        try await watcher.subscribe(to: "whereabouts/receipts/eve/phone/+", qos: .atLeastOnce)
        let receipts = watcher.messages
        let (subscriber, subscriberLog) = try setup.startSubscriber(log: "sub.log")
        try await Self.waitForLog(subscriberLog, "Announced receipts for the members' devices.")
        let announcement = try await receipts.next(timeout: .seconds(10))
        #expect(announcement.topic == "whereabouts/receipts/eve/phone/sub-receipts")
        #expect(try JSONDecoder().decode(ReceiptMessage.self, from: announcement.payload).isAnnouncement)

        let device = try await MQTTClient.connected(to: setup.broker, clientID: "fake-eve")
        let tst = Int(Date().timeIntervalSince1970) - 5
        let payload = Data(#"{"_type":"location","tid":"ph","lat":52.5,"lon":13.4,"acc":5,"tst":\#(tst),"seq":1,"seq_epoch":"00000000feedface","seq_settled":1}"#.utf8)
        try await device.publish(to: "owntracks/eve/phone", payload: payload, qos: .atLeastOnce, retain: false)
        let first = try JSONDecoder().decode(ReceiptMessage.self, from: try await receipts.next(timeout: .seconds(10)).payload)
        #expect(first.epoch == "00000000feedface" && first.seq == 1)
        #expect(try await setup.stored() == [tst], "the receipt came after the commit")
        // Sent again (the publisher missed the receipt): stored once, answered again.
        try await device.publish(to: "owntracks/eve/phone", payload: payload, qos: .atLeastOnce, retain: false)
        let again = try JSONDecoder().decode(ReceiptMessage.self, from: try await receipts.next(timeout: .seconds(10)).payload)
        #expect(again.epoch == "00000000feedface" && again.seq == 1)
        #expect(try await setup.stored() == [tst])
        subscriber.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await subscriber.waitForExit() }
        await device.disconnect()
        await watcher.disconnect()
        await setup.broker.stop()
    }
}

/// The two programs the receipt tests run.
enum ReceiptBinaries {
    static let publisher = TestPaths.builtExecutable(named: "whereabouts-pub")
    static let subscriber = TestPaths.builtExecutable(named: "whereabouts-sub")
    static var built: Bool { publisher != nil && subscriber != nil }
}
