@testable import Subscriber
import Foundation
@testable import Provisioning
import Testing
import WhereaboutsCore
import WhereaboutsMQTT
import WhereaboutsTestSupport

/// The per-circle OwnTracks trees (`owntracks: true`), read the way the OwnTracks apps read a
/// subscription: Android keys a friend by the topic, the card's without `/info`
/// (`MessageBase.contactKey`, `MessageClear` in owntracks/android); iOS by the first N levels,
/// N the level count of its own publish topic, 3 (`OwnTracking.m` `processMessage` in
/// owntracks/ios); an empty retained message removes the friend in both.
@Suite("OwnTracks trees per circle")
struct OwnTracksTreeTests {
    static let passwords = ["alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw", "dave": "dave-pw", "whereabouts-sub": "sub-pw"]

    static let yaml = """
        circles:
          - id: family
            owntracks: true
            members:
              - {user: alice, device: phone, name: Alice}
              - {user: bob, device: phone, name: Bob}
              - {user: carol, device: car, name: Carol}
          - id: carpool
            owntracks: true
            members:
              - {user: alice, device: phone, name: Alice}
              - {user: dave, device: handheld, name: Dave}
          - id: field-team
            members:
              - {user: bob, device: phone, name: Bob}
              - {user: dave, device: handheld, name: Dave}
        """

    static func credentials(_ user: String) -> MQTTConfiguration.Credentials {
        .init(username: user, password: passwords[user])
    }

    @Test("An OwnTracks app subscribed as a member sees its circle's friends field for field, a removed member disappears, and another circle's tree never arrives")
    func appSeesItsCircle() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("circles.yaml").path
        try Self.yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let file = try CirclesFile.load(path: path)
        let acl = try AccessControlList(circles: file.circles, subscriberUser: "whereabouts-sub").render()
        #expect(acl.contains("topic read whereabouts-circles-family/#"))
        #expect(acl.contains("topic write whereabouts-circles-family/#"), "the subscriber writes the tree")
        #expect(!acl.contains("whereabouts-circles-field-team"))
        let plan = try DynamicSecurityPlan(circles: file.circles)
        let bobRules = try #require(plan.roles["whereabouts-user-bob"])
        #expect(bobRules.contains(.init(type: "subscribePattern", topic: "whereabouts-circles-family/#")))
        #expect(bobRules.contains(.init(type: "publishClientReceive", topic: "whereabouts-circles-family/#")))
        #expect(!bobRules.contains { $0.topic.contains("carpool") || $0.topic.hasPrefix("whereabouts-circles-field-team") })
        #expect(plan.roles["whereabouts-subscriber"]?.contains(.init(type: "publishClientSend", topic: "whereabouts-circles-carpool/#")) == true)
        let broker = try await Broker.start(.init(allowAnonymous: false, users: Self.passwords, acl: acl))
        let subscriber = try await RunningSubscriber.start(
            broker: broker, file: file, circlesPath: path, credentials: Self.credentials("whereabouts-sub"))

        // bob's app, with the subscription topic set to both trees (space-separated, as the
        // Android app splits it); he is not in carpool, so the broker must not deliver it.
        let bob = try await ViewProbe.start(
            broker: broker, filters: ["whereabouts-circles-family/#", "whereabouts-circles-carpool/#"],
            credentials: Self.credentials("bob"))
        let alice = try await MQTTClient.connected(to: broker, credentials: Self.credentials("alice"))
        let now = Int(Date().timeIntervalSince1970)
        try await alice.publish(to: "owntracks/alice/phone/info", payload: Data(OwnTracksPayloads.card(name: "Ally", face: OwnTracksPayloads.png).utf8),
                                qos: .atLeastOnce, retain: true)
        try await alice.publish(to: "owntracks/alice/phone", payload: Data(OwnTracksPayloads.androidLocation(tst: now).utf8),
                                qos: .atLeastOnce, retain: true)

        let aliceKey = "whereabouts-circles-family/alice/phone"
        let received = try await bob.wait("alice as bob's friend") { snapshot -> [MQTTMessage]? in
            let contacts = AppContacts(snapshot.messages)
            return contacts.locations[aliceKey]?["tst"] as? Int == now && contacts.cards[aliceKey]?["face"] != nil
                ? snapshot.messages : nil
        }
        let friends = AppContacts(received)
        // Both apps' rules, applied to the tree the broker delivered, find one friend per member
        // of family (alice, bob, carol), each with the topic of that member.
        let members: Set<String> = [aliceKey, "whereabouts-circles-family/bob/phone", "whereabouts-circles-family/carol/car"]
        #expect(friends.friends == members, "Android")
        #expect(AppContacts(received, app: .iOS(publishTopic: "owntracks/bob/phone")).friends == members, "iOS")
        // The former layout (<view prefix>/<circle>/owntracks/<user>/<device>), read by iOS's
        // rule, made the whole circle one friend whose position jumped between members.
        let former = Set(received.map { FriendKey.key(
            $0.topic.replacingOccurrences(of: "whereabouts-circles-family/", with: "whereabouts/circles/family/owntracks/"),
            app: .iOS(publishTopic: "owntracks/bob/phone")) })
        #expect(former == ["whereabouts/circles/family"])
        let location = try #require(friends.locations[aliceKey])
        #expect(location["_type"] as? String == "location")
        #expect(location["lat"] as? Double == 52.6638 && location["lon"] as? Double == -8.6267)
        #expect(location["acc"] as? Int == 13 && location["alt"] as? Int == 57 && location["batt"] as? Int == 91)
        #expect(location["tid"] as? String == "dv" && location["t"] as? String == "p" && location["vel"] as? Int == 0)
        let card = try #require(friends.cards[aliceKey])
        #expect(card["name"] as? String == "Alice")
        #expect((card["face"] as? String).flatMap { Data(base64Encoded: $0) } == Data(OwnTracksPayloads.png))
        // carol never published: listed by her card, not on the map.
        let carolKey = "whereabouts-circles-family/carol/car"
        #expect(friends.cards[carolKey]?["name"] as? String == "Carol")
        #expect(friends.locations[carolKey] == nil)

        // alice leaves family: bob's app is told to drop her.
        try Self.yaml.replacingOccurrences(of: "      - {user: alice, device: phone, name: Alice}\n      - {user: bob", with: "      - {user: bob")
            .write(toFile: path, atomically: true, encoding: .utf8)
        _ = try await bob.wait("alice removed from bob's friends") { snapshot -> Bool? in
            let contacts = AppContacts(snapshot.messages)
            return contacts.locations[aliceKey] == nil && contacts.cards[aliceKey] == nil && contacts.cleared.contains(aliceKey) ? true : nil
        }
        // dave, in carpool, sees alice there; bob never got a byte of carpool's tree.
        let dave = try await ViewProbe.start(broker: broker, filters: ["whereabouts-circles-carpool/#"], credentials: Self.credentials("dave"))
        _ = try await dave.wait("alice in dave's carpool") { AppContacts($0.messages).locations["whereabouts-circles-carpool/alice/phone"] != nil ? true : nil }
        #expect(await bob.messages.allSatisfy { !$0.topic.contains("carpool") })
        #expect(await bob.messages.contains { $0.topic.hasPrefix("whereabouts-circles-family/") })

        await dave.stop()
        await alice.disconnect()
        await bob.stop()
        await subscriber.stop()
        await broker.stop()
    }

    @Test("The tree publishes a member's messages only when their bytes change, and clears what a circle no longer holds")
    func publishesChangesOnly() async {
        var tree = OwnTracksTree(viewPrefix: "whereabouts/circles")
        var alice = MemberView(user: "alice", device: "phone", name: "Alice", tid: "al", status: .online,
                               fix: FixView(tst: 100, lat: 52.1, lon: -8.1, acc: 5, vel: 12, cog: 90))
        let bob = MemberView(user: "bob", device: "phone", name: "Bob", status: .unknown)
        let view = CircleView(circle: .init(id: "family", name: "Family"), generatedAt: 100, members: [alice, bob])
        let first = await tree.update(with: view) { _ in nil }
        // The first update of a run clears the former layout's retained messages, once.
        #expect(Set(first.filter(\.payload.isEmpty).map(\.topic)) == [
            "whereabouts/circles/family/owntracks/alice/phone", "whereabouts/circles/family/owntracks/alice/phone/info",
            "whereabouts/circles/family/owntracks/bob/phone", "whereabouts/circles/family/owntracks/bob/phone/info",
        ])
        #expect(Set(first.filter { !$0.payload.isEmpty }.map(\.topic)) == [
            "whereabouts-circles-family/alice/phone", "whereabouts-circles-family/alice/phone/info",
            "whereabouts-circles-family/bob/phone/info",
        ])
        #expect(first.allSatisfy { $0.retain })
        #expect(await tree.update(with: view) { _ in nil }.isEmpty)

        // A new fix changes one message; `gone` withdraws the location.
        alice.fix?.tst = 130
        let second = await tree.update(with: CircleView(circle: view.circle, generatedAt: 130, members: [alice, bob])) { _ in nil }
        #expect(second.map(\.topic) == ["whereabouts-circles-family/alice/phone"])
        alice.status = .gone
        let gone = await tree.update(with: CircleView(circle: view.circle, generatedAt: 140, members: [alice, bob])) { _ in nil }
        #expect(gone.map(\.topic) == ["whereabouts-circles-family/alice/phone"] && gone.allSatisfy { $0.payload.isEmpty })

        // After a failed publish everything is sent again; clearing empties every topic.
        tree.invalidate(circle: "family")
        #expect(await tree.update(with: CircleView(circle: view.circle, generatedAt: 150, members: [alice, bob])) { _ in nil }.count == 2)
        let cleared = tree.clear(circle: "family")
        #expect(cleared.count == 2 && cleared.allSatisfy { $0.payload.isEmpty && $0.retain })
        #expect(tree.circles.isEmpty)
    }

    @Test("Each privacy level shows the app only what the circle's view shows")
    func privacyLevels() throws {
        let home = Place(name: "Home", lat: 52.664, lon: -8.627, radius: 120)
        var member = MemberView(user: "alice", device: "phone", name: "Alice", tid: "al", status: .online,
                                fix: FixView(tst: 100, lat: 52.6638, lon: -8.6267, acc: 8, vel: 5, cog: 70, batt: 80))
        member.place = "Home"
        member.placeSince = 90
        let exact = try #require(OwnTracksFriend(member, places: [home], face: nil).location)
        #expect(exact.lat == 52.6638 && exact.vel == 5 && exact.cog == 70 && exact.inregions == ["Home"])

        let coarse = try #require(OwnTracksFriend(member.redacted(to: .coarse, grid: 1000), places: [home], face: nil).location)
        #expect(coarse.acc >= 1000 && coarse.vel == nil && coarse.cog == nil && coarse.lat != 52.6638)

        let place = try #require(OwnTracksFriend(member.redacted(to: .place, grid: 1000), places: [home], face: nil).location)
        #expect(place.lat == 52.664 && place.lon == -8.627 && place.acc == 120 && place.tst == 90 && place.batt == nil)
        var away = member
        away.place = nil
        #expect(OwnTracksFriend(away.redacted(to: .place, grid: 1000), places: [home], face: nil).location == nil)

        let hidden = OwnTracksFriend(member.redacted(to: .hidden, grid: 1000), places: [home], face: nil)
        #expect(hidden.location == nil && hidden.card.name == "Alice" && hidden.card.tid == "ce")
    }
}

/// What an OwnTracks app keeps from the messages of its subscription: locations and cards by
/// the app's friend key (``FriendKey``), removed by an empty message.
struct AppContacts {
    var locations: [String: [String: Any]] = [:]
    var cards: [String: [String: Any]] = [:]
    var cleared: Set<String> = []

    /// Every friend the app lists: by location or by card.
    var friends: Set<String> { Set(locations.keys).union(cards.keys) }

    init(_ messages: [MQTTMessage], app: FriendKey.App = .android) {
        for message in messages {
            let key = FriendKey.key(message.topic, app: app)
            guard !message.payload.isEmpty else {
                locations[key] = nil
                cards[key] = nil
                cleared.insert(key)
                continue
            }
            guard let json = try? JSONSerialization.jsonObject(with: message.payload) as? [String: Any] else { continue }
            switch json["_type"] as? String {
            case "location": locations[key] = json
            case "card": cards[key] = json
            default: break
            }
        }
    }
}
