import Foundation
import Synchronization
import Testing
@testable import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport
@testable import Subscriber

#if canImport(Glibc)
import Glibc
#endif

/// An idle `whereabouts-sub` (connected, nothing arriving) lets the CPU sleep: its periodic tasks
/// wait until something is due instead of looking on a timer (docs/subscriber.md, "Wake-ups while
/// idle"), and what they owe after a quiet spell (a receipt, a status file write) still comes in
/// time. The real binary against a real mosquitto.
@Suite("whereabouts-sub while idle", .serialized, .enabled(if: ReceiptBinaries.subscriber != nil))
struct SubscriberIdleTests {
    static let eve = MemberID(user: "eve", device: "phone")
    /// Eve's phone in one circle, as in the receipts' end-to-end suite.
    static let circles = ReceiptProcessTests.circles

    /// Most voluntary context switches per second, all threads together, of an idle subscriber
    /// with a history, a status file and receipts. Measured here on the 2-core build machine
    /// (debug build): 11.5 before its timers waited for work (the status file every 0.5 s, the
    /// receipts and the history's open retry every second), 1.9 after (libdispatch's 1 s pool
    /// monitor, the circles file's 2 s check, the MQTT keepalive; docs/subscriber.md, "Wake-ups
    /// while idle"). A sleep until a deadline wakes as often on a loaded machine, only later.
    static let idleBound = 6.0

    /// One test's folder, broker and subscriber.
    struct Setup {
        let directory: URL
        let broker: Broker
        var statusFile: URL { directory.appendingPathComponent("sub.status.json") }
        var log: URL { directory.appendingPathComponent("sub.log") }

        init(prefix: String) async throws {
            directory = try TestPaths.makeTemporaryDirectory(prefix: prefix)
            broker = try await Broker.start()
            try SubscriberIdleTests.circles.write(to: directory.appendingPathComponent("circles.yaml"), atomically: true, encoding: .utf8)
        }

        /// Starts the subscriber with a status file, and a history unless `history` is false;
        /// returns once its receipts are announced (its subscriptions are in place).
        func startSubscriber(history: Bool = true) async throws -> ChildProcess {
            let arguments = [
                "--circles", directory.appendingPathComponent("circles.yaml").path, "--broker", "mqtt://127.0.0.1:\(broker.port)",
                "--client-id", "sub-idle", "--state-file", statusFile.path,
            ] + (history ? ["--history", directory.appendingPathComponent("history.sqlite").path, "--history-days", "0"] : [])
            let subscriber = try ChildProcess.spawn(ReceiptBinaries.subscriber!.path, arguments, logFile: log)
            try await waitUntil("the subscriber's receipts announced") {
                ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("Announced receipts for the members' devices.")
            }
            return subscriber
        }

        /// Starts the subscriber (``startSubscriber(history:)``) after a client that watches eve's
        /// receipts, and returns the three once the subscriber's announcement reached that client.
        func startWatched(history: Bool = true) async throws -> (ChildProcess, MQTTClient, MQTTMessages) {
            let watcher = try await MQTTClient.connected(to: broker, clientID: "receipt-watcher")
            try await watcher.subscribe(to: "whereabouts/receipts/eve/phone/+", qos: .atLeastOnce)
            let receipts = watcher.messages
            let subscriber = try await startSubscriber(history: history)
            _ = try await receipts.next(timeout: .seconds(10))  // the announcement
            return (subscriber, watcher, receipts)
        }

        func stop(_ subscriber: ChildProcess) async throws {
            subscriber.signal(SIGTERM)
            _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await subscriber.waitForExit() }
            await broker.stop()
        }

        /// The statuses in the status file, by member; empty when it is not there (yet).
        var savedStatuses: [String: String] {
            guard let data = FileManager.default.contents(atPath: statusFile.path),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let members = object["members"] as? [[String: Any]] else { return [:] }
            var statuses: [String: String] = [:]
            for member in members {
                if let user = member["user"] as? String, let device = member["device"] as? String, let status = member["status"] as? String {
                    statuses["\(user)/\(device)"] = status
                }
            }
            return statuses
        }
    }

    /// A stamped OwnTracks location of eve's phone (as `whereabouts-pub` sends it), `seq` of one epoch.
    static func location(seq: Int) -> Data {
        let tst = Int(Date().timeIntervalSince1970) - 1
        return Data(#"{"_type":"location","tid":"ph","lat":52.66,"lon":-8.63,"acc":5,"tst":\#(tst),"seq":\#(seq),"seq_epoch":"00000000c0ffee00","seq_settled":1}"#.utf8)
    }

    @Test("Idle with a history, a status file and receipts, the subscriber wakes fewer than 6 times a second")
    func idleWakeUps() async throws {
        let setup = try await Setup(prefix: "sub-idle")
        let (subscriber, watcher, receipts) = try await setup.startWatched()
        // One report goes the whole way first (view, history, status file, receipt), so that
        // every part has had work and gone back to waiting.
        let device = try await MQTTClient.connected(to: setup.broker, clientID: "fake-eve")
        try await device.publish(to: "owntracks/eve/phone", payload: Self.location(seq: 1), qos: .atLeastOnce, retain: false)
        _ = try await receipts.next(timeout: .seconds(10))
        await device.disconnect()
        // Settling: the receipt sender's and the status writer's last rounds end within 1.5 s.
        try await Task.sleep(for: .seconds(3))

        let wakeUps = try await WakeUpCount.measure(pid: subscriber.pid, over: .seconds(8))
        #expect(wakeUps.before > 0, "the counts are read")
        #expect(wakeUps.rate < Self.idleBound, "\(wakeUps.count) voluntary context switches in \(wakeUps.seconds) s")
        #expect(subscriber.isRunning)
        await watcher.disconnect()
        try await setup.stop(subscriber)
    }

    @Test("After a quiet spell a report's receipt still comes within 3 s of its publish (the history commits it, the sender sends it)")
    func receiptAfterIdle() async throws {
        let setup = try await Setup(prefix: "sub-idle-receipt")
        let (subscriber, watcher, receipts) = try await setup.startWatched()
        let device = try await MQTTClient.connected(to: setup.broker, clientID: "fake-eve")
        for seq in 1...3 {
            // Quiet for longer than the sender's interval: it waits for work, not on its timer.
            try await Task.sleep(for: .seconds(2.5))
            let sent = ContinuousClock.now
            try await device.publish(to: "owntracks/eve/phone", payload: Self.location(seq: seq), qos: .atLeastOnce, retain: false)
            let receipt = try JSONDecoder().decode(ReceiptMessage.self, from: try await receipts.next(timeout: .seconds(10)).payload)
            let waited = ContinuousClock.now - sent
            #expect(receipt.epoch == "00000000c0ffee00" && receipt.seq == Int64(seq))
            #expect(waited < .seconds(3), "receipt \(seq) came \(waited) after the report")
        }
        await device.disconnect()
        await watcher.disconnect()
        try await setup.stop(subscriber)
    }

    @Test("Without a history, after a quiet spell a status change is in the status file within 1.5 s and the report's receipt follows the write")
    func statusFileAfterIdle() async throws {
        let setup = try await Setup(prefix: "sub-idle-status")
        let (subscriber, watcher, receipts) = try await setup.startWatched(history: false)
        try await Task.sleep(for: .seconds(2))
        #expect(setup.savedStatuses["eve/phone"] == nil, "nothing known of eve yet")

        let device = try await MQTTClient.connected(to: setup.broker, clientID: "fake-eve")
        var sent = ContinuousClock.now
        try await device.publish(to: "owntracks/eve/phone", payload: Self.location(seq: 1), qos: .atLeastOnce, retain: false)
        try await waitUntil("eve online in the status file", timeout: .seconds(10)) { setup.savedStatuses["eve/phone"] == "online" }
        let written = ContinuousClock.now - sent
        #expect(written < .seconds(1.5), "written \(written) after the report")
        var receipt = try JSONDecoder().decode(ReceiptMessage.self, from: try await receipts.next(timeout: .seconds(10)).payload)
        #expect(receipt.seq == 1)

        // Quiet again; a report that changes no status still needs a write to be durable.
        try await Task.sleep(for: .seconds(2.5))
        sent = ContinuousClock.now
        try await device.publish(to: "owntracks/eve/phone", payload: Self.location(seq: 2), qos: .atLeastOnce, retain: false)
        receipt = try JSONDecoder().decode(ReceiptMessage.self, from: try await receipts.next(timeout: .seconds(10)).payload)
        let confirmed = ContinuousClock.now - sent
        #expect(receipt.seq == 2)
        #expect(confirmed < .seconds(3), "receipt came \(confirmed) after the report")

        // A status change after the quiet spell: the device's last will.
        try await Task.sleep(for: .seconds(2.5))
        sent = ContinuousClock.now
        let will = Data(#"{"_type":"lwt","tst":\#(Int(Date().timeIntervalSince1970))}"#.utf8)
        try await device.publish(to: "owntracks/eve/phone", payload: will, qos: .atLeastOnce, retain: false)
        try await waitUntil("eve offline in the status file", timeout: .seconds(10)) { setup.savedStatuses["eve/phone"] == "offline" }
        let rewritten = ContinuousClock.now - sent
        #expect(rewritten < .seconds(1.5), "written \(rewritten) after the will")
        await device.disconnect()
        await watcher.disconnect()
        try await setup.stop(subscriber)
    }
}

/// What the idle tasks wait on, without I/O: the receipt ledger's ``ReceiptLedger/waitForWork()``
/// and the store's ``CircleViewStore/waitForStatusWork()``.
@Suite("Waiting for work")
struct WaitingForWorkTests {
    let alice = MemberID(user: "alice", device: "phone")

    private func stamp(_ seq: Int64) -> ReportStamp {
        ReportStamp.read(Array(#"{"_type":"location","seq":\#(seq),"seq_epoch":"aa","seq_settled":1}"#.utf8))!
    }

    @Test("The receipt sender's wait: parked while nothing is touched, woken by a note, at once while a device waits for its commit, ended by cancellation")
    func ledgerWait() async throws {
        let ledger = ReceiptLedger()
        let parked = Task { await ledger.waitForWork() }
        #expect(await isStillRunning(parked), "nothing noted: it waits")
        ledger.note(stamp(1), of: alice, ticket: 5)
        try await withTimeout(.seconds(5), "the note to wake the waiter") { await parked.value }
        // Not committed yet: the device stays touched, so the next wait returns at once.
        #expect(ledger.takeDue(durableThrough: 4).isEmpty)
        try await withTimeout(.seconds(5), "a wait while a device waits for its commit") { await ledger.waitForWork() }
        #expect(ledger.takeDue(durableThrough: 5).map(\.seq) == [1])
        // Nothing pending: it waits again, until a failed receipt is handed back.
        let again = Task { await ledger.waitForWork() }
        #expect(await isStillRunning(again))
        ledger.retry([.init(member: alice, epoch: "aa", seq: 1)])
        try await withTimeout(.seconds(5), "the retry to wake the waiter") { await again.value }
        #expect(ledger.takeDue(durableThrough: 5).map(\.seq) == [1])
        let cancelled = Task { await ledger.waitForWork() }
        #expect(await isStillRunning(cancelled))
        cancelled.cancel()
        try await withTimeout(.seconds(5), "cancellation to end the wait") { await cancelled.value }
    }

    @Test("The status writer's wait: parked while no status changes, woken by a change or a report awaiting a status write, and the work is taken once")
    func statusWait() async throws {
        let store = try Build.store()
        let router = TopicRouter(prefix: "owntracks")
        let decoder = MessageDecoder()
        let now = Date()
        let tst = Int(now.timeIntervalSince1970) - 5
        func location(seq: Int) -> MQTTMessage {
            MQTTMessage(topic: "owntracks/alice/phone", payload: Data(#"""
                {"_type":"location","tid":"ph","lat":52.1,"lon":-8.6,"acc":5,"tst":\#(tst + seq),"seq":\#(seq),"seq_epoch":"e1","seq_settled":\#(seq)}
                """#.utf8))
        }
        let parked = Task { await store.waitForStatusWork() }
        #expect(await isStillRunning(parked), "nothing changed: it waits")
        // alice's first live fix: her status becomes online.
        _ = await store.ingest(location(seq: 1), router: router, decoder: decoder, at: now)
        try await withTimeout(.seconds(5), "the status change to wake the writer") { await parked.value }
        #expect(await store.takeStatusSnapshot()?.map(\.status) == [.online])
        // The work was taken: the next wait parks. A fix that changes no status, without
        // receipts, asks for nothing.
        let second = Task { await store.waitForStatusWork() }
        _ = await store.ingest(location(seq: 2), router: router, decoder: decoder, at: now)
        #expect(await isStillRunning(second), "no status changed, no receipt waits")
        // With receipts and no history, a report is durable only once the file is written after it.
        let ledger = ReceiptLedger()
        _ = await store.ingest(location(seq: 3), router: router, decoder: decoder,
                               receipts: ReceiptIntake(ledger: ledger, statusFile: true), at: now)
        try await withTimeout(.seconds(5), "the report to wake the writer") { await second.value }
        let generation = ledger.beginStatusSave()
        #expect(await store.takeStatusSnapshot() == nil, "no status changed: nothing to write, the round only makes the report durable")
        ledger.statusSaved(generation)
        #expect(ledger.takeDue(durableThrough: ledger.statusDurableThrough).map(\.seq) == [3])
        let cancelled = Task { await store.waitForStatusWork() }
        #expect(await isStillRunning(cancelled))
        cancelled.cancel()
        try await withTimeout(.seconds(5), "cancellation to end the wait") { await cancelled.value }
    }
}
