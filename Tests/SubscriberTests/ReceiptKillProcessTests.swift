import Foundation
import GRDB
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// Issue 24.2 with the real parts: a `kill -9` of the real `whereabouts-sub --history` at any
/// moment, with or without a full history disk (a real tmpfs filled to the last byte), loses no
/// report of the real `whereabouts-pub` replaying a track with receipts on, through a real
/// mosquitto. After the publisher ends, every report it committed is in the history exactly once,
/// the subscriber's receipt covers the publisher's last sequence number and the outbox is empty
/// (nothing unconfirmed). docs/receipts.md, "A kill -9 of the subscriber".
@Suite("Receipts: kill -9 of the subscriber, with and without a full history disk", .serialized, .enabled(if: ReceiptBinaries.built))
struct ReceiptKillProcessTests {
    /// The subscriber's arguments, its history at `history`.
    static func subscriberArguments(_ setup: ReceiptProcessTests.Setup, history: String) -> [String] {
        [
            "--circles", setup.circles.path, "--broker", "mqtt://127.0.0.1:\(setup.broker.port)", "--client-id", "sub-receipts-kill",
            "--state-file", "none", "--history", history, "--history-days", "0",
        ]
    }

    static func logText(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    /// eve/phone's stored locations' `tst`s, duplicates included, read without the store.
    static func storedTSTs(_ path: String) -> [Int] {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        guard FileManager.default.fileExists(atPath: path),
              let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return [] }
        defer { try? queue.close() }
        return (try? queue.read { db in
            try Int.fetchAll(db, sql: """
                SELECT location.tst FROM location JOIN member ON member.id = location.member
                WHERE member.user = 'eve' AND member.device = 'phone'
                """)
        }) ?? []
    }

    /// The reports left in the publisher's outbox file (acknowledged or not).
    static func outboxRows(_ url: URL) throws -> Int {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM report") ?? -1 }
    }

    /// The retained receipt the subscriber left for eve/phone.
    static func retainedReceipt(_ broker: Broker) async throws -> ReceiptMessage {
        let watcher = try await MQTTClient.connected(to: broker, clientID: "receipt-kill-watcher")
        let messages = watcher.messages
        try await watcher.subscribe(to: "whereabouts/receipts/eve/phone/sub-receipts-kill", qos: .atLeastOnce)
        let message = try await messages.next(timeout: .seconds(10))
        await watcher.disconnect()
        return try JSONDecoder().decode(ReceiptMessage.self, from: message.payload)
    }

    /// Waits for the publisher to end once receipts cover every report, then checks the
    /// outcome: exit 0 with no drain timeout, every committed report stored exactly once, the
    /// subscriber's receipt covering the last sequence number, the outbox empty.
    static func expectEveryReportOnce(_ setup: ReceiptProcessTests.Setup, publisher: ChildProcess, history: String,
                                      metricsPort: Int) async throws {
        // The gauges while the publisher still runs: its last reading before it ends.
        let watching = Task {
            var last: String?
            while !Task.isCancelled {
                if let text = try? await ReceiptProcessTests.scrape(metricsPort) { last = text }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return last
        }
        let exit = try await withTimeout(.seconds(150), "the publisher to have every report confirmed") { await publisher.waitForExit() }
        watching.cancel()
        let lastScrape = await watching.value
        #expect(exit == 0)
        let log = setup.publisherText
        #expect(!log.contains("Drain timeout reached"), "every report was confirmed before the publisher ended:\n\(log.suffix(3000))")
        #expect(log.contains("Subscribers confirm receipts"))
        let reports = setup.committed
        #expect(reports.count > 50, "the recording gives about 120 reports")
        let stored = Self.storedTSTs(history)
        #expect(Set(stored) == reports, "missing: \(reports.subtracting(stored).sorted()), unexpected: \(Set(stored).subtracting(reports).sorted())")
        #expect(stored.count == Set(stored).count, "no report stored twice")
        #expect(try Self.outboxRows(setup.outbox) == 0, "nothing unconfirmed is left in the outbox")
        // The outbox is new, so its reports are numbered 1...count: the receipt covers them all.
        let receipt = try await Self.retainedReceipt(setup.broker)
        #expect(receipt.seq == Int64(reports.count), "the receipt covers every report the publisher committed: \(receipt)")
        if let lastScrape {
            let confirmed = ReceiptProcessTests.metric("whereabouts_pub_confirmed_total", in: lastScrape) ?? -1
            // The last scrape can come before the last report was committed (the publisher ends
            // as soon as everything is confirmed): it counts no more than that, and confirms no
            // more than it committed.
            let committed = ReceiptProcessTests.metric("whereabouts_pub_reports_total", in: lastScrape) ?? -1
            #expect(committed >= 0 && committed <= Double(reports.count), "reports counted at the last scrape: \(committed)")
            #expect(confirmed <= committed, "never more confirmed than committed: \(confirmed) of \(committed)")
        }
    }

    @Test("The history disk fills up, the subscriber is killed (-9) while it is full and restarted on the still full disk; once space returns every report is stored once and confirmed")
    func killOnFullDisk() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return }
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "receipt-kill-full-disk")
        try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", folder.path])
        defer { try? ToolRun.runChecked("/bin/umount", ["-l", folder.path]) }
        let history = folder.appendingPathComponent("history.sqlite").path
        let setup = try await ReceiptProcessTests.Setup(prefix: "receipt-kill-full", options: Broker.Options(persistence: true))
        let arguments = Self.subscriberArguments(setup, history: history)
        let firstLog = setup.directory.appendingPathComponent("sub-1.log")
        let first = try ChildProcess.spawn(ReceiptProcessTests.subscriberBinary!.path, arguments, logFile: firstLog)
        try await ReceiptProcessTests.waitForLog(firstLog, "Announced receipts for the members' devices.")
        let metricsPort = try FreePort.find()
        // 240 s of recording at 12x: about 6 reports a second for 20 s.
        let publisher = try setup.startPublisher(speed: "12", metricsPort: metricsPort)
        try await waitUntil("reports flowing into the history", timeout: .seconds(30)) { Self.storedTSTs(history).count >= 10 }

        // The disk fills: the next batch cannot be committed and the subscriber stops taking
        // messages; the kill comes at a random moment while the disk is full.
        let filler = try HistoryFullDiskProcessTests.fill(folder)
        try await waitUntil("the intake paused on the full disk", timeout: .seconds(30)) {
            Self.logText(firstLog).contains("stopped taking messages from the broker")
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...1_000)))
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }
        let atKill = Set(Self.storedTSTs(history))

        // Restarted on the still full disk: it keeps running and takes nothing; the publisher
        // holds what no receipt covers.
        let secondLog = setup.directory.appendingPathComponent("sub-2.log")
        let second = try ChildProcess.spawn(ReceiptProcessTests.subscriberBinary!.path, arguments, logFile: secondLog)
        try await waitUntil("the second run's intake paused", timeout: .seconds(30)) {
            Self.logText(secondLog).contains("stopped taking messages from the broker")
        }
        try await waitUntil("the publisher counts unconfirmed reports", timeout: .seconds(30)) {
            guard let text = try? await ReceiptProcessTests.scrape(metricsPort) else { return false }
            return (ReceiptProcessTests.metric("whereabouts_pub_unconfirmed", in: text) ?? 0) > 0
        }
        #expect(second.isRunning, "log:\n\(Self.logText(secondLog).suffix(3000))")

        // Space returns: the subscriber takes what the broker queued and the publisher's resends.
        try FileManager.default.removeItem(at: filler)
        try await Self.expectEveryReportOnce(setup, publisher: publisher, history: history, metricsPort: metricsPort)
        #expect(atKill.count < setup.committed.count, "the kill came while reports were still coming")
        #expect(Self.logText(secondLog).contains("taking messages from the broker again"), "log:\n\(Self.logText(secondLog).suffix(3000))")
        second.signal(SIGTERM)
        _ = try await withTimeout(.seconds(20), "the subscriber to exit") { await second.waitForExit() }
        await setup.broker.stop()
    }

    @Test("Three kills (-9) of the subscriber at random moments of one replay, disk with room: every report is stored once and confirmed")
    func killsAtRandomMoments() async throws {
        let setup = try await ReceiptProcessTests.Setup(prefix: "receipt-kill-random", options: Broker.Options(persistence: true))
        let history = setup.directory.appendingPathComponent("history.sqlite").path
        let arguments = Self.subscriberArguments(setup, history: history)
        let firstLog = setup.directory.appendingPathComponent("sub-0.log")
        var subscriber = try ChildProcess.spawn(ReceiptProcessTests.subscriberBinary!.path, arguments, logFile: firstLog)
        try await ReceiptProcessTests.waitForLog(firstLog, "Announced receipts for the members' devices.")
        let metricsPort = try FreePort.find()
        // About 6 reports a second for 20 s: three kills fit while reports keep coming.
        let publisher = try setup.startPublisher(speed: "12", metricsPort: metricsPort)
        try await waitUntil("reports flowing into the history", timeout: .seconds(30)) { Self.storedTSTs(history).count >= 5 }
        var storedAtKills: [Int] = []
        for kill in 1...3 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...3_000)))
            let killed = subscriber
            killed.signal(SIGKILL)
            _ = try await withTimeout(.seconds(10), "the killed subscriber") { await killed.waitForExit() }
            storedAtKills.append(Self.storedTSTs(history).count)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...1_000)))
            let log = setup.directory.appendingPathComponent("sub-\(kill).log")
            subscriber = try ChildProcess.spawn(ReceiptProcessTests.subscriberBinary!.path, arguments, logFile: log)
        }
        try await Self.expectEveryReportOnce(setup, publisher: publisher, history: history, metricsPort: metricsPort)
        print("receipts, kill -9 at random moments: \(storedAtKills) rows stored at the kills, \(setup.committed.count) reports, none lost")
        #expect((storedAtKills.last ?? .max) < setup.committed.count, "the last kill came while reports were still coming")
        let last = subscriber
        last.signal(SIGTERM)
        _ = try await withTimeout(.seconds(20), "the subscriber to exit") { await last.waitForExit() }
        await setup.broker.stop()
    }
}
