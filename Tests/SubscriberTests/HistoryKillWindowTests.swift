import Foundation
import GRDB
import Synchronization
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

/// The window a `kill -9` of the real `whereabouts-sub` can lose, measured: a device publishes
/// steadily (QoS 1) through a real mosquitto, the subscriber is killed at a random moment and
/// restarted; every report the broker acknowledged and the history does not hold after the
/// restart was handed over (PUBACKed by libmosquitto before the message callback ran) but not
/// yet committed. With and without a full history disk (a real tmpfs). docs/subscriber.md,
/// "History", gives the figures.
@Suite("whereabouts-sub process: what a kill -9 at a random moment loses", .serialized,
       .enabled(if: HistoryProcessTests.executable != nil))
struct HistoryKillWindowTests {
    /// Reports per second the device publishes.
    static let rate = 100

    /// One run: publishes steadily; once 50 reports are acknowledged fills the disk when
    /// `fullDisk`, kills the subscriber at a random moment in the next 1.5 s, restarts it (with
    /// space again) and returns how many acknowledged reports are missing from the history.
    static func lostInOneRun(fullDisk: Bool, broker: Broker, run: Int) async throws -> (lost: Int, sent: Int) {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "history-window")
        if fullDisk { try ToolRun.runChecked("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", folder.path]) }
        defer { if fullDisk { try? ToolRun.runChecked("/bin/umount", ["-l", folder.path]) } }
        let circles = folder.appendingPathComponent("circles.yaml")
        try OwnTracksPayloads.circles.write(to: circles, atomically: true, encoding: .utf8)
        let path = folder.appendingPathComponent("history.sqlite").path
        let arguments = [
            "--circles", circles.path, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-window-\(run)",
            "--state-file", "none", "--history", path, "--history-days", "0",
        ]
        let log = folder.appendingPathComponent("sub.log")
        let first = try ChildProcess.spawn(HistoryProcessTests.executable!.path, arguments, logFile: log)
        try await waitUntil("subscribed") { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Subscribed to the circles' members.") }

        let publisher = try await MQTTClient.connected(to: broker)
        let sent = Mutex<Set<Int>>([])
        let start = Int(Date().timeIntervalSince1970) - 100_000 + run * 10_000
        let publishing = Task {
            var tst = start
            while !Task.isCancelled {
                tst += 1
                try await publisher.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: tst).utf8),
                                            qos: .atLeastOnce, retain: false)
                let acknowledged = tst
                sent.withLock { _ = $0.insert(acknowledged) }
                try await Task.sleep(for: .milliseconds(1000 / rate))
            }
        }
        // Publishing is under way (on a loaded machine it starts slowly): then the disk fills,
        // and the kill comes at a random moment.
        try await waitUntil("50 reports acknowledged", timeout: .seconds(90)) { sent.withLock { $0.count } >= 50 }
        var filler: URL?
        if fullDisk { filler = try HistoryFullDiskProcessTests.fill(folder) }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...1500)))
        first.signal(SIGKILL)
        _ = try await withTimeout(.seconds(10), "the killed subscriber") { await first.waitForExit() }
        try await Task.sleep(for: .milliseconds(500))  // the broker queues these for the session
        publishing.cancel()
        _ = try? await publishing.value
        await publisher.disconnect()
        if let filler { try FileManager.default.removeItem(at: filler) }

        let second = try ChildProcess.spawn(HistoryProcessTests.executable!.path, arguments, logFile: log)
        let acknowledged = sent.withLock { $0 }
        // A last report after everything else: messages of one session arrive in order, so once
        // it is stored, everything the broker had queued before it was taken and committed.
        let marker = start + 9_999
        let late = try await MQTTClient.connected(to: broker)
        try await late.publish(to: "owntracks/Dave/handheld", payload: Data(OwnTracksPayloads.androidLocation(tst: marker).utf8),
                               qos: .atLeastOnce, retain: false)
        await late.disconnect()
        try await waitUntil("the last report stored", timeout: .seconds(30)) { HistoryFullDiskProcessTests.storedTSTs(path).contains(marker) }
        let stored = HistoryFullDiskProcessTests.storedTSTs(path)
        second.signal(SIGTERM)
        _ = try await withTimeout(.seconds(20), "the second run to stop") { await second.waitForExit() }
        return (acknowledged.subtracting(stored).count, acknowledged.count)
    }

    @Test("Without and with a full disk, a kill -9 loses at most what arrived in the last second", arguments: [false, true])
    func window(fullDisk: Bool) async throws {
        if fullDisk, !(getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")) { return }
        let broker = try await Broker.start()
        var losses: [Int] = []
        for run in 0..<5 {
            let (lost, sent) = try await Self.lostInOneRun(fullDisk: fullDisk, broker: broker, run: run)
            losses.append(lost)
            #expect(lost <= Self.rate, "at most a second's reports are lost: \(lost) of \(sent)")
        }
        print("kill -9 window, \(fullDisk ? "full disk" : "disk with room"), at most \(Self.rate) reports/s: lost \(losses) in 5 runs")
        await broker.stop()
    }
}
