import Foundation
import Logging
import Outbox
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport

/// The real whereabouts-pub draining a backlog while the real mosquitto is frozen (SIGSTOP): it
/// keeps the TCP connection but answers nothing, so every publish of the window times out while
/// libmosquitto still holds it.
@Suite("Publisher with a stalled broker", .enabled(if: PublisherProcess.executable != nil))
struct StalledBrokerResendTests {
    static let topic = "owntracks/cleo/tracker"
    /// The recorder's keepalive, longer than any freeze here (up to about 45 s): with the usual
    /// 10 s, the recorder gave the frozen broker up after about 20 s of silence ("MQTT connection
    /// lost", then connected again with its session), and the broker sent it the messages that
    /// had been in flight to it again, which counted as the publisher's copies (49 in a
    /// fresh-clone CI run and 22 alone, against the 20 the publisher may resend; with 120 s: 20
    /// and 17 alone, no reconnect).
    static let recorderKeepAlive = Duration.seconds(120)

    /// Waits until the recorder has a location on the device's topic: the drainer is publishing.
    ///
    /// Not the first message of any kind: that is usually the presence connection's `online`,
    /// which goes out while the main connection may still wait for the SUBACK of its receipt
    /// subscription. A freeze then stalls that subscription, and the drainer, which sends nothing
    /// until it knows whether a subscriber confirms receipts (docs/publisher.md, "A broker that
    /// stalls while the publisher starts"), has no publish in flight to fail: its first publish
    /// goes out after the subscription's 10 s timeout and the 1 s receipt wait, and fails one
    /// publish timeout later: 12.6, 13.0 and 13.3 s after the freeze in 3 of 3 runs of
    /// `publishTimeoutOption` with a 300 ms delay put by hand before the receipt subscription,
    /// which fits the 12.7 and 13.1 s of 2 of 6 fresh-clone CI runs (their logs were not kept;
    /// there the suites beside it slowed the publisher's start). The publisher's own timers were
    /// on time in the runs traced (the subscribe expired 3 ms after its deadline, the publishes
    /// 2-3 ms after theirs).
    static func waitForFirstLocation(_ run: BacklogRun) async throws {
        try await run.recorder.waitUntil("the first location on \(topic)", timeout: .seconds(30)) { messages in
            messages.contains { $0.topic == topic }
        }
    }

    @Test("A broker frozen across two publish timeouts gets at most one window of copies; every report arrives; the outbox empties")
    func noWindowResentPerTimeout() async throws {
        let broker = try await Broker.start()
        let maxInFlight = 20
        // The moving track keeps reports coming (60 s of them), so the freeze catches publishes in
        // flight even if the backlog's drain ended before it: a race that had failed a loaded run.
        let run = try await BacklogRun(broker: broker, user: "cleo", count: 3000, track: .moving(points: 600), arguments: [
            "--max-in-flight", "\(maxInFlight)", "--drain-timeout", "60",
        ], recorderKeepAlive: Self.recorderKeepAlive)
        let (recorder, pub) = (run.recorder, run.publisher)
        try await Self.waitForFirstLocation(run)
        await broker.pause()
        // The first window times out after the publish timeout (10 s) with the TCP connection up.
        try await pub.waitForLog("Publish failed", timeout: .seconds(30))
        // The fault lasts long enough for a drainer that resends at once (after its 1 s retry
        // delay) to see that second window time out too and send a third; well inside the
        // keep-alive (30 s), so the connection never drops.
        try await Task.sleep(for: .seconds(13))
        await broker.resume()
        // Stopped, it drains what is left (within --drain-timeout) and exits 0.
        try await pub.waitForLog("The held publishes were settled; sending again.", timeout: .seconds(60))
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(120)) == 0, "\(pub.log)")
        try await run.waitForEveryReport()
        let received = recorder.locations(on: Self.topic)
        let distinct = Set(received.map(\.message.tst))
        #expect(distinct.isSuperset(of: run.everyTST), "every backlog report arrived")
        // Each PUBLISH the broker received was forwarded to the recorder once. Only the window that
        // timed out may go out twice (its late PUBACK clears it, then the drainer resends it).
        let copies = received.count - distinct.count
        #expect(copies <= maxInFlight, "\(received.count) PUBLISHes for \(distinct.count) reports: \(copies) copies")
        // The wait is told in the log, and its end.
        #expect(pub.log.contains("waiting for their acknowledgement before sending again"), "\(pub.log)")
        #expect(pub.log.contains("The held publishes were settled; sending again."), "\(pub.log)")
        #expect(try run.outboxDepth() == 0, "every acknowledged row was deleted")
        print("stalled broker: \(received.count) PUBLISHes for \(distinct.count) reports (\(copies) copies)")
        await recorder.stop()
        await broker.stop()
    }

    @Test("--publish-timeout sets how long a publish waits for its PUBACK: 2 s, not the default 10 s, before the drainer counts it failed; every report still arrives")
    func publishTimeoutOption() async throws {
        let broker = try await Broker.start()
        let run = try await BacklogRun(broker: broker, user: "cleo", count: 3000, track: .moving(points: 600), arguments: [
            "--max-in-flight", "20", "--drain-timeout", "60", "--publish-timeout", "2",
        ], recorderKeepAlive: Self.recorderKeepAlive)
        let (recorder, pub) = (run.recorder, run.publisher)
        try await Self.waitForFirstLocation(run)
        await broker.pause()
        let paused = Date()
        try await pub.waitForLog("Publish failed", timeout: .seconds(30))
        // On the publisher's own clock (its log line, whole seconds, so at most 1 s short), not
        // when this process, among the other suites, gets to see the line.
        let failed = try #require(pub.loggedTime(of: "Publish failed"), "\(pub.log)")
        let waited = failed.timeIntervalSince(paused)
        // The publishes in flight at the pause were sent moments before it; with the default they
        // would fail about 10 s after it. 2.0 s on this test's clock in 13 runs on 2026-11-28
        // (alone, under three busy loops, and with a 300 ms delay before the receipt
        // subscription), 1.3-2.0 s here (the log's whole seconds make it look shorter).
        #expect(waited < 7, "the first publish failed \(waited) s after the broker froze")
        await broker.resume()
        // Stopped, it drains what is left (within --drain-timeout) and exits 0.
        pub.signal(SIGTERM)
        #expect(try await pub.waitForExit(timeout: .seconds(120)) == 0, "\(pub.log)")
        try await run.waitForEveryReport()
        #expect(Set(recorder.locations(on: Self.topic).map(\.message.tst)).isSuperset(of: run.everyTST))
        #expect(try run.outboxDepth() == 0)
        await recorder.stop()
        await broker.stop()
    }
}
