import Testing
@testable import Provisioning
import Subscriber
import WhereaboutsTestSupport

@Suite("Broker accounts generated from the circles file")
struct AccessControlPlanTests {
    static func circles(_ members: [(String, String)]) -> [Circle] {
        [Circle(id: "family", name: "Family", members: members.map { Member(user: $0.0, device: $0.1) })]
    }

    @Test("One account per connection, named after its client id, with the user's role")
    func accounts() throws {
        let plan = try DynamicSecurityPlan(circles: try Self.exampleFile().circles, operatorUsers: ["ops"], reservedUsers: ["admin"])
        #expect(Set(plan.accounts.keys) == [
            "whereabouts-sub", "ops",
            "whereabouts-alice-phone", "whereabouts-alice-phone-presence", "whereabouts-bob-phone", "whereabouts-bob-phone-presence",
            "whereabouts-carol-car", "whereabouts-carol-car-presence", "whereabouts-dave-handheld", "whereabouts-dave-handheld-presence",
        ])
        let presence = try #require(plan.accounts["whereabouts-bob-phone-presence"])
        #expect(presence.clientID == "whereabouts-bob-phone-presence")
        #expect(presence.roles == ["whereabouts-user-bob"])
        #expect(presence.passwordName == "whereabouts-bob-phone", "the device's two connections share one password file")
        #expect(plan.accounts["whereabouts-sub"]?.roles == ["whereabouts-subscriber"])
        #expect(plan.accounts["ops"]?.roles == ["whereabouts-operator"])
        // bob is in family and field-team, not carpool: the same rights as the plain ACL file.
        let bob = try #require(plan.roles["whereabouts-user-bob"])
        #expect(bob.contains(.init(type: "publishClientSend", topic: "owntracks/bob/#")))
        #expect(bob.contains(.init(type: "publishClientReceive", topic: "whereabouts/circles/field-team/view")))
        #expect(!bob.contains { $0.topic.contains("carpool") })
        #expect(!bob.contains { $0.type == "publishClientSend" && !$0.topic.hasPrefix("owntracks/bob/") })
        #expect(plan.roles["whereabouts-subscriber"] == [
            .init(type: "subscribePattern", topic: "owntracks/#"), .init(type: "publishClientReceive", topic: "owntracks/#"),
            .init(type: "publishClientSend", topic: "whereabouts/circles/#"),
            .init(type: "publishClientSend", topic: "whereabouts/receipts/#"),
            // family publishes an OwnTracks tree, under a root of its own.
            .init(type: "publishClientSend", topic: "whereabouts-circles-family/#"),
        ])
        #expect(bob.contains(.init(type: "subscribePattern", topic: "whereabouts/receipts/bob/#")))
        #expect(bob.contains(.init(type: "publishClientReceive", topic: "whereabouts/receipts/bob/#")))
    }

    @Test("A member named like the subscriber's, an operator's or the admin account is refused", arguments: ["whereabouts-sub", "ops", "admin"])
    func memberNamedLikeAnAccount(user: String) throws {
        #expect(throws: AccessControlError.self) {
            try DynamicSecurityPlan(circles: Self.circles([(user, "phone")]), operatorUsers: ["ops"], reservedUsers: ["admin"])
        }
    }

    @Test("Two connections that would share an account are refused")
    func sharedAccounts() throws {
        // whereabouts-a-b-c twice, and a device named like another's presence connection.
        for members in [[("a-b", "c"), ("a", "b-c")], [("alice", "phone"), ("alice", "phone-presence")], [("sub", "x"), ("alice", "phone")]] {
            let error = #expect(throws: AccessControlError.self) {
                try DynamicSecurityPlan(circles: Self.circles(members), subscriberUsers: ["whereabouts-sub", "whereabouts-sub-x"])
            }
            #expect(error?.description.contains("would belong both to") == true, "\(members): \(error?.description ?? "-")")
        }
        // The same device in several circles is one account.
        let twice = [Circle(id: "a", name: "A", members: [Member(user: "alice", device: "phone")]),
                     Circle(id: "b", name: "B", members: [Member(user: "alice", device: "phone")])]
        #expect(try DynamicSecurityPlan(circles: twice).accounts.count == 3)
    }

    @Test("The plain ACL generator refuses a member named like the subscriber or an operator")
    func aclCollision() throws {
        for (user, operators) in [("whereabouts-sub", [String]()), ("ops", ["ops"])] {
            let acl = AccessControlList(circles: Self.circles([(user, "phone")]), operatorUsers: operators)
            let error = #expect(throws: AccessControlError.self) { try acl.render() }
            #expect(error?.description.contains("'\(user)'") == true)
        }
    }

    @Test("From an empty plugin everything is created; from a matching one nothing but the defaults is sent")
    func reconcile() throws {
        let plan = try DynamicSecurityPlan(circles: Self.circles([("alice", "phone")]))
        let admin = DynamicSecuritySnapshot.Client(username: "admin", clientid: nil, textdescription: nil, roles: [.init(rolename: "admin")])
        let empty = DynamicSecuritySnapshot(clients: [admin], roles: [])
        let (commands, warnings) = try empty.commands(toReach: plan) { _ in "pw" }
        #expect(commands.map(\.command) == ["setDefaultACLAccess", "createRole", "createRole", "createClient", "createClient", "createClient"])
        #expect(warnings.count == 1 && warnings[0].contains("'admin' has no client id bound"))
        #expect(!commands.map(\.description).joined().contains("\"pw\""), "passwords are hidden in descriptions")

        let matching = DynamicSecuritySnapshot(
            clients: [admin] + plan.accounts.values.map {
                .init(username: $0.username, clientid: $0.clientID, textdescription: DynamicSecurityPlan.marker, roles: $0.roles.map { .init(rolename: $0) })
            },
            roles: plan.roles.map { name, rules in
                .init(rolename: name, textdescription: DynamicSecurityPlan.marker, acls: rules.map { .init(acltype: $0.type, topic: $0.topic, allow: $0.allow) })
            })
        #expect(try matching.commands(toReach: plan) { _ in "pw" }.commands.map(\.command) == ["setDefaultACLAccess"])

        // alice leaves; bob joins: alice's accounts and role go, bob's come.
        let next = try DynamicSecurityPlan(circles: Self.circles([("bob", "car")]))
        let changes = try matching.commands(toReach: next) { _ in "pw" }.commands
        #expect(changes.filter { $0.command == "deleteClient" }.count == 2)
        #expect(changes.filter { $0.command == "createClient" }.count == 2)
        #expect(changes.map(\.command).contains("deleteRole"))

        // An account the generator did not make is never taken over.
        let foreign = DynamicSecuritySnapshot(clients: [.init(username: "whereabouts-alice-phone", clientid: nil, textdescription: nil, roles: [])], roles: [])
        #expect(throws: AccessControlError.self) { try foreign.commands(toReach: plan) { _ in "pw" } }
    }
}

extension AccessControlPlanTests {
    /// The circles file shipped as the example (`examples/circles.yaml`).
    static func exampleFile() throws -> CirclesFile {
        try CirclesFile.load(path: TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path)
    }
}
