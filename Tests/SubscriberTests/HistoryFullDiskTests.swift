import Foundation
import FoundationNetworking
import GRDB
import WhereaboutsMQTT
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport
@testable import Subscriber

/// Whether this process may mount a tmpfs (root and `/bin/mount`).
private let canMountTmpfs = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

/// The history (and its outliers kept aside) on a real tmpfs filled on purpose (needs root, as
/// PublisherTests' SmallDisk): a batch that does not fit fails whole with `storageFull`, nothing
/// committed before is lost or damaged, and writing resumes once space is freed.
@Suite("History on a full file system (real SQLite on a small tmpfs)", .enabled(if: canMountTmpfs))
struct HistoryFullDiskTests {
    @Test("A batch that does not fit fails whole with storageFull; everything committed stays; writing resumes after space is freed")
    func fullDisk() async throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "history-full")
        try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=400k", "tmpfs", folder.path])
        defer { try? ToolRun.runChecked("/bin/umount", ["-l", folder.path]) }
        let filler = folder.appendingPathComponent("filler")
        try Data(count: 96 * 1024).write(to: filler)
        let path = folder.appendingPathComponent("history.sqlite").path
        let store = try HistoryStore(path: path, logger: Build.quietLogger)

        var committed: [Int] = []
        var failure: HistoryError?
        var tst = Build.t0
        for _ in 0..<1_000 {
            let tsts = Array(tst..<(tst + 100))
            tst += 100
            let rows = tsts.flatMap { t in
                [HistoryStoreTests.row(Build.alice, t), HistoryOutliersTests.rejectedRow(Build.bob, t)]
            }
            do {
                _ = try await store.write(rows)
                committed += tsts
            } catch {
                failure = error
                break
            }
        }
        #expect(failure == .storageFull(path: path), "\(String(describing: failure))")
        #expect(failure?.description.contains("is full") == true)
        #expect(!committed.isEmpty)
        // Everything committed is there, nothing of the batch that failed.
        #expect(try await store.locations(of: Build.alice, from: 0, to: .max, limit: 1_000_000).map(\.fix.tst) == committed)
        #expect(try await store.rejectedLocations(of: Build.bob, from: 0, to: .max, limit: 1_000_000).map(\.location.fix.tst) == committed)

        try FileManager.default.removeItem(at: filler)
        #expect(try await store.write([HistoryStoreTests.row(Build.alice, tst), HistoryOutliersTests.rejectedRow(Build.bob, tst)]) == 2)
        let restored = try await store.restoreRejected(
            of: Build.bob, from: committed[0], to: committed[0], notAfter: .max, actor: "bob", client: "::1", at: 1)
        #expect(restored.restored == 1)
        #expect(try await store.locations(of: Build.alice, from: 0, to: .max, limit: 1_000_000).last?.fix.tst == tst)
    }
}

/// The real `whereabouts-sub` with its history on a real tmpfs that fills up, against a real
/// mosquitto: it stops taking messages while the history cannot be written (the broker queues
/// them for the persistent session), keeps serving the dashboard, starts on a full disk, and
/// takes and stores the queued messages once space returns.
@Suite("whereabouts-sub process: history on a full file system", .serialized,
       .enabled(if: canMountTmpfs && HistoryProcessTests.executable != nil))
struct HistoryFullDiskProcessTests {
    static func get(_ port: Int, _ path: String) async throws -> (Int, String) {
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")), timeoutInterval: 10)
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The stored locations' `tst`s, read without the store (nothing written, nothing checked).
    static func storedTSTs(_ path: String) -> Set<Int> {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return [] }
        defer { try? queue.close() }
        return Set((try? queue.read { db in try Int.fetchAll(db, sql: "SELECT tst FROM location") }) ?? [])
    }

    /// Fills the file system at `folder` to the last byte with `filler`.
    static func fill(_ folder: URL) throws -> URL {
        let filler = folder.appendingPathComponent("filler")
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        let handle = try FileHandle(forWritingTo: filler)
        defer { try? handle.close() }
        let chunk = Data(count: 16 * 1024)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        let small = Data(count: 512)
        while (try? handle.write(contentsOf: small)) != nil {}
        return filler
    }

    @Test("Full disk while running, kill -9, restart on the still full disk: the dashboard stays up, intake stops, what the broker queued is stored once space returns")
    func fullDiskPauseKillRestartResume() async throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "history-full-process")
        try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", folder.path])
        defer { try? ToolRun.runChecked("/bin/umount", ["-l", folder.path]) }
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "history-full-process-files")
        let circles = directory.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("history.sqlite").path
        let port = try FreePort.find()
        let arguments = [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-full",
            "--state-file", "none", "--history", path, "--history-days", "0", "--http-port", "\(port)",
        ]
        let publisher = try await MQTTClient.connected(to: broker)
        let now = Int(Date().timeIntervalSince1970)
        var next = now - 20_000
        func publish(_ count: Int) async throws -> Set<Int> {
            var sent: Set<Int> = []
            for _ in 0..<count {
                next += 1
                sent.insert(next)
                try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: next).utf8),
                                            qos: .atLeastOnce, retain: false)
            }
            return sent
        }
        @Sendable func logText(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

        let firstLog = directory.appendingPathComponent("first.log")
        let first = try ChildProcess.spawn(HistoryProcessTests.executable!.path, arguments, logFile: firstLog)
        try await waitUntil("the first run's subscriptions") { logText(firstLog).contains("Subscribed to the circles' members.") }
        let stored = try await publish(50)
        try await waitUntil("50 rows committed", timeout: .seconds(20)) { Self.storedTSTs(path) == stored }

        // The disk fills up; the next batch cannot be written, and the subscriber stops taking.
        let filler = try Self.fill(folder)
        let handedOver = try await publish(100)
        try await waitUntil("the intake paused", timeout: .seconds(20)) {
            logText(firstLog).contains("stopped taking messages from the broker") && logText(firstLog).contains("MQTT client stopped")
        }
        let queuedWhileRunning = try await publish(100)  // acknowledged by the broker, queued for the session
        #expect(try await Self.get(port, "/healthz").0 == 200, "the dashboard stays up")
        let (status, view) = try await Self.get(port, "/api/circles/friends")
        #expect(status == 200 && view.contains("Dave"), "the views are served: \(status) \(view.prefix(300))")
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }

        // Restarted on the still full disk: it keeps running and serving.
        let secondLog = directory.appendingPathComponent("second.log")
        let second = try ChildProcess.spawn(HistoryProcessTests.executable!.path, arguments, logFile: secondLog)
        try await waitUntil("the second run's subscriptions", timeout: .seconds(20)) { logText(secondLog).contains("Subscribed to the circles' members.") }
        try await waitUntil("the second run's intake paused", timeout: .seconds(20)) {
            logText(secondLog).contains("stopped taking messages from the broker") && logText(secondLog).contains("MQTT client stopped")
        }
        #expect(second.isRunning, "log:\n\(logText(secondLog))")
        // The HTTP server starts after the MQTT services: under load it can listen a moment later.
        try await waitUntil("the dashboard up on a full disk", timeout: .seconds(20)) { (try? await Self.get(port, "/healthz").0) == 200 }
        let queuedWhilePaused = try await publish(100)

        // Space returns: the writer's retry opens and writes, the intake resumes, the queue is stored.
        try FileManager.default.removeItem(at: filler)
        let expected = stored.union(queuedWhileRunning).union(queuedWhilePaused)
        _ = try? await waitUntil("everything the broker queued is stored", timeout: .seconds(30)) {
            Self.storedTSTs(path).isSuperset(of: expected)
        }
        let missing = expected.subtracting(Self.storedTSTs(path))
        #expect(missing.isEmpty, """
            missing \(missing.count): stored before \(missing.intersection(stored).count), queued while running \(missing.intersection(queuedWhileRunning).count), \
            queued while paused \(missing.intersection(queuedWhilePaused).count)
            """)
        #expect(logText(secondLog).contains("taking messages from the broker again"), "log:\n\(logText(secondLog))")
        let lost = handedOver.subtracting(Self.storedTSTs(path))
        // The window this test measures: messages the broker had handed over before the intake
        // stopped, held in memory when the kill came (docs/subscriber.md).
        print("full disk: \(lost.count) of \(handedOver.count) messages handed over before the pause were lost to the kill -9")
        second.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(20), "the second run to stop") { await second.waitForExit() } == 0)
        await publisher.disconnect()
        await broker.stop()
    }

    @Test("Started on a full disk with nothing queued: intake stops, and resumes once space returns (the store opens on the gate's retry)")
    func fullDiskStartWithNothingQueued() async throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "history-full-start")
        try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", folder.path])
        defer { try? ToolRun.runChecked("/bin/umount", ["-l", folder.path]) }
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "history-full-start-files")
        let circles = directory.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("history.sqlite").path
        let filler = try Self.fill(folder)
        let log = directory.appendingPathComponent("sub.log")
        @Sendable func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        let sub = try ChildProcess.spawn(HistoryProcessTests.executable!.path, [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-full-start",
            "--state-file", "none", "--history", path, "--history-days", "0",
        ], logFile: log)
        try await waitUntil("the intake paused", timeout: .seconds(20)) {
            logText().contains("stopped taking messages from the broker") && logText().contains("MQTT client stopped")
        }
        #expect(logText().contains("cannot be opened yet"), "log:\n\(logText())")
        #expect(sub.isRunning)
        try FileManager.default.removeItem(at: filler)
        try await waitUntil("the intake resumed", timeout: .seconds(20)) { logText().contains("taking messages from the broker again") }
        let publisher = try await MQTTClient.connected(to: broker)
        let tst = Int(Date().timeIntervalSince1970) - 60
        try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: tst).utf8),
                                    qos: .atLeastOnce, retain: false)
        try await waitUntil("the location stored", timeout: .seconds(20)) { Self.storedTSTs(path) == [tst] }
        sub.signal(SIGTERM)
        #expect(try await withTimeout(.seconds(20), "the subscriber to stop") { await sub.waitForExit() } == 0)
        await publisher.disconnect()
        await broker.stop()
    }
}
