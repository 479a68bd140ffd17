import Subscriber
import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// Sharding and the real `whereabouts-sub` process against a real mosquitto.
@Suite("Shards and the whereabouts-sub process")
struct ProcessIntegrationTests {
    static let circlesPath = TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path
    static let executable = TestPaths.builtExecutable(named: "whereabouts-sub")

    @Test("Three shards split the circles, subscribe only to their members, and together publish every view")
    func shards() async throws {
        let file = try CirclesFile.load(path: Self.circlesPath)
        let broker = try await Broker.start()
        var instances: [RunningSubscriber] = []
        for index in 0..<3 {
            instances.append(try await RunningSubscriber.start(
                broker: broker, file: file, clientID: "shard-\(index)", shard: try Shard(index: index, count: 3)))
        }
        let probe = try await ViewProbe.start(broker: broker)
        let publisher = try await MQTTClient.connected(to: broker)
        var owned: [[String]] = []
        for instance in instances { owned.append(await instance.store.circles().map(\.id)) }
        // FNV-1a of the ids mod 3: family and field-team to shard 0, carpool to shard 2.
        #expect(owned == [["family", "field-team"], [], ["carpool"]])
        let now = Int(Date().timeIntervalSince1970)
        for member in file.memberIDs {
            try await ReplayedTracks.publish([LocationMessage(tid: "xx", tst: now, lat: 52.5, lon: -8.5, acc: 5)], as: member, with: publisher)
        }
        for circle in file.circles {
            for member in circle.members {
                _ = try await probe.member(circle.id, member.user, member.device) { $0.fix?.tst == now }
            }
        }
        // Each instance tracks exactly the members of its own circles, and heard from no one else.
        for (instance, ids) in zip(instances, owned) {
            let expected = Set(file.circles.filter { ids.contains($0.id) }.flatMap { $0.members.map(\.id) })
            #expect(Set(await instance.store.trackedMembers()) == expected)
            #expect(await instance.store.statistics().rejected["unknown_topic"] == 0)
        }
        await publisher.disconnect()
        await probe.stop()
        for instance in instances { await instance.stop() }
        await broker.stop()
    }

    @Test("The process reloads on SIGHUP, keeps running, and stops cleanly on SIGTERM", .enabled(if: executable != nil))
    func signals() async throws {
        let broker = try await Broker.start()
        let directory = try TestPaths.makeTemporaryDirectory()
        let log = directory.appendingPathComponent("sub.log")
        let probe = try await ViewProbe.start(broker: broker)
        let child = try ChildProcess.spawn(
            Self.executable!.path,
            ["--circles", Self.circlesPath, "--broker", "mqtt://\(broker.host):\(broker.port)", "--client-id", "sub-process",
             "--view-interval", "0.1", "--state-file", directory.appendingPathComponent("status.json").path],
            logFile: log)
        @Sendable func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try await waitUntil("the subscriber's subscriptions") { logText().contains("Subscribed to the circles' members.") }
        _ = try await probe.wait("three retained views") { $0.views.count == 3 ? true : nil }
        child.signal(SIGHUP)
        try await waitUntil("the SIGHUP reload") { logText().contains("whereabouts.reason=SIGHUP") }
        #expect(child.isRunning)
        child.signal(SIGTERM)
        let status = try await withTimeout(.seconds(10), "the subscriber to exit") { await child.waitForExit() }
        #expect(status == 0, "wait status \(status); log:\n\(logText())")
        await probe.stop()
        await broker.stop()
    }

    @Test("The process logs in over TLS with a password file", .enabled(if: executable != nil))
    func tlsAndPassword() async throws {
        let directory = try TestPaths.makeTemporaryDirectory()
        let certificates = try await TestCertificates.make(in: directory)
        let broker = try await Broker.start(.init(allowAnonymous: false, users: ["whereabouts-sub": "s3cret"], tls: certificates))
        let passwordFile = directory.appendingPathComponent("password")
        try "s3cret\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("sub.log")
        let child = try ChildProcess.spawn(
            Self.executable!.path,
            ["--circles", Self.circlesPath, "--broker", "mqtts://localhost:\(try #require(broker.tlsPort))",
             "--ca-file", certificates.caCertificate.path, "--username", "whereabouts-sub",
             "--password-file", passwordFile.path, "--client-id", "sub-tls", "--state-file", "none"],
            logFile: log)
        @Sendable func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try await waitUntil("the subscriber's subscriptions over TLS") { logText().contains("Subscribed to the circles' members.") }
        #expect(!logText().contains("s3cret"))
        child.signal(SIGTERM)
        let status = try await withTimeout(.seconds(10), "the subscriber to exit") { await child.waitForExit() }
        #expect(status == 0)
        await broker.stop()
    }
}
