import Subscriber
import Foundation
import Provisioning
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The generated ACL with a password file (`mosquitto_passwd -b`) on a real mosquitto.
@Suite("Access control with a real broker")
struct AccessControlIntegrationTests {
    static let passwords = ["alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw", "dave": "dave-pw",
                            "whereabouts-sub": "sub-pw", "ops": "ops-pw"]

    static func credentials(_ user: String) -> MQTTConfiguration.Credentials {
        .init(username: user, password: passwords[user])
    }

    @Test("A member cannot read another circle's view, and cannot publish as someone else")
    func privacy() async throws {
        let file = try CirclesFile.load(path: TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path)
        let acl = try AccessControlList(circles: file.circles, subscriberUser: "whereabouts-sub", operatorUsers: ["ops"]).render()
        let broker = try await Broker.start(.init(allowAnonymous: false, users: Self.passwords, acl: acl))
        let subscriber = try await RunningSubscriber.start(broker: broker, file: file, credentials: Self.credentials("whereabouts-sub"))
        // An operator account reads every view once published (retained).
        let admin = try await ViewProbe.start(broker: broker, credentials: Self.credentials("ops"))
        _ = try await admin.wait("all three views") { $0.views.count == 3 ? true : nil }

        // bob is in family and field-team, not in carpool.
        let bob = try await ViewProbe.start(
            broker: broker,
            filters: ["whereabouts/circles/carpool/view", "whereabouts/circles/carpool/events", "whereabouts/circles/family/view"],
            credentials: Self.credentials("bob"))
        _ = try await bob.wait("bob's family view") { $0.views["family"] }
        #expect(await bob.views["carpool"] == nil)

        // alice forges a fix as bob, then publishes her own; the broker handles one client's
        // messages in order, so once hers is in the view the forged one would have arrived too.
        let alice = try await MQTTClient.connected(to: broker, credentials: Self.credentials("alice"))
        let now = Int(Date().timeIntervalSince1970)
        let encoder = JSONEncoder()
        try? await alice.publish(to: "owntracks/bob/phone", payload: try encoder.encode(
            LocationMessage(tid: "bo", tst: now, lat: 10, lon: 10, acc: 5)), qos: .atLeastOnce, retain: true)
        try await alice.publish(to: "owntracks/alice/phone", payload: try encoder.encode(
            LocationMessage(tid: "al", tst: now, lat: 52.3, lon: -8.3, acc: 5)), qos: .atLeastOnce, retain: true)
        let aliceView = try await admin.member("family", "alice", "phone") { $0.fix?.tst == now }
        #expect(aliceView.fix?.lat == 52.3)
        let family = try #require(await subscriber.store.view(id: "family"))
        #expect(family.member(user: "bob", device: "phone")?.fix == nil)
        // And bob still never received carpool's view, although it changed.
        _ = try await bob.wait("bob's updated family view") { $0.views["family"]?.member(user: "alice", device: "phone")?.fix?.tst == now ? true : nil }
        #expect(await bob.views["carpool"] == nil)
        #expect(await bob.messages.allSatisfy { !$0.topic.contains("carpool") })

        await alice.disconnect()
        await bob.stop()
        await admin.stop()
        await subscriber.stop()
        await broker.stop()
    }
}
