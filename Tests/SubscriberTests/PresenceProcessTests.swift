import Subscriber
import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Honest presence end to end: three real `whereabouts-pub` processes standing still (heartbeat
/// 10 s), a real mosquitto and the real `whereabouts-sub`. One keeps heartbeating, one is killed
/// with SIGKILL (the broker sends its wills), one is frozen with SIGSTOP (no will: its
/// connection looks alive, but its promise is broken).
@Suite("Presence through real processes")
struct PresenceProcessTests {
    static let subscriber = TestPaths.builtExecutable(named: "whereabouts-sub")
    static let publisher = TestPaths.builtExecutable(named: "whereabouts-pub")

    static let circles = """
        circles:
          - id: family
            members:
              - {user: alice, device: phone}
              - {user: bob, device: phone}
              - {user: carol, device: phone}
        """

    @Test("Standing still with heartbeats is stationary; SIGKILL is offline (the will), never overdue; a frozen publisher is overdue",
          .enabled(if: subscriber != nil && publisher != nil))
    func stillKilledFrozen() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let circlesPath = directory.appendingPathComponent("circles.yaml")
        try Self.circles.write(to: circlesPath, atomically: true, encoding: .utf8)
        let probe = try await ViewProbe.start(broker: broker)
        let url = "mqtt://\(broker.host):\(broker.port)"
        let subLog = directory.appendingPathComponent("sub.log")
        let sub = try ChildProcess.spawn(
            Self.subscriber!.path,
            ["--circles", circlesPath.path, "--broker", url, "--client-id", "sub-presence", "--view-interval", "0.1",
             "--stale-timeout", "3", "--overdue-grace", "2", "--state-file", "none"],
            logFile: subLog)
        @Sendable func subText() -> String { (try? String(contentsOf: subLog, encoding: .utf8)) ?? "" }
        try await waitUntil("the subscriber's subscriptions") { subText().contains("Subscribed to the circles' members.") }
        var publishers: [String: ChildProcess] = [:]
        for (index, user) in ["alice", "bob", "carol"].enumerated() {
            publishers[user] = try ChildProcess.spawn(
                Self.publisher!.path,
                ["--source", "sim:still?seed=\(index + 1)&lat=52.66&lon=-8.63&outliers=0&start=now", "--user", user, "--device", "phone",
                 "--tid", String(user.prefix(2)), "--broker", url, "--profile", "significant", "--heartbeat", "10",
                 "--keep-alive", "60", "--outbox", directory.appendingPathComponent("\(user).sqlite").path],
                logFile: directory.appendingPathComponent("\(user).log"))
        }
        defer { for child in publishers.values where child.isRunning { child.signal(SIGKILL) } }
        for user in ["alice", "bob", "carol"] {
            let member = try await probe.member("family", user, "phone", timeout: .seconds(20)) { $0.fix != nil && $0.due != nil }
            #expect(member.status == .online || member.status == .stationary)
        }
        publishers["bob"]!.signal(SIGKILL)
        publishers["carol"]!.signal(SIGSTOP)
        let bob = try await probe.member("family", "bob", "phone", timeout: .seconds(20)) { $0.status == .offline }
        #expect(bob.status == .offline)
        let carol = try await probe.member("family", "carol", "phone", timeout: .seconds(30)) { $0.status == .overdue }
        #expect(carol.due != nil)
        // Alice kept her promise: a heartbeat moved her due on, and she is stationary, not overdue.
        let firstDue = try #require(await probe.wait("alice's first due") { $0.views["family"]?.member(user: "alice", device: "phone")?.due })
        let alice = try await probe.member("family", "alice", "phone", timeout: .seconds(30)) { ($0.due ?? 0) > firstDue && $0.status == .stationary }
        #expect(alice.status == .stationary)
        publishers["carol"]!.signal(SIGCONT)
        let events = try await probe.wait("events") { $0.events }
        let byUser = Dictionary(grouping: events, by: \.user).mapValues { $0.map(\.event) }
        #expect(byUser["alice"]?.contains(.overdue) == false, "\(byUser)")
        #expect(byUser["alice"]?.contains(.stationary) == true, "\(byUser)")
        #expect(byUser["bob"]?.contains(.offline) == true && byUser["bob"]?.contains(.overdue) == false, "\(byUser)")
        #expect(byUser["carol"]?.last == .overdue || byUser["carol"]?.contains(.overdue) == true, "\(byUser)")
        for user in ["alice", "carol"] { publishers[user]!.signal(SIGTERM) }
        for user in ["alice", "carol"] {
            let child = publishers[user]!
            _ = try await withTimeout(.seconds(20), "\(user)'s publisher to exit") { await child.waitForExit() }
        }
        sub.signal(SIGTERM)
        _ = try await withTimeout(.seconds(10), "the subscriber to exit") { await sub.waitForExit() }
        await probe.stop()
        await broker.stop()
    }
}
