import Foundation
import Testing
import WhereaboutsTestSupport
@testable import Provisioning
import Subscriber

@Suite("Access control list")
struct AccessControlListTests {
    @Test("Each member writes only their own topics and reads only their circles' views (and trees, where a circle has one)")
    func rules() throws {
        let acl = try AccessControlList(circles: try Self.exampleFile().circles, operatorUsers: ["ops"]).render()
        let blocks = Dictionary(uniqueKeysWithValues: acl.components(separatedBy: "\n\n").compactMap { block -> (String, [String])? in
            let lines = block.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
            guard let user = lines.first, user.hasPrefix("user ") else { return nil }
            return (String(user.dropFirst(5)), Array(lines.dropFirst()))
        })
        #expect(blocks["bob"] == [
            "topic readwrite owntracks/bob/#", "topic read whereabouts/receipts/bob/#",
            "topic read whereabouts/circles/family/view", "topic read whereabouts/circles/family/events",
            "topic read whereabouts-circles-family/#",
            "topic read whereabouts/circles/field-team/view", "topic read whereabouts/circles/field-team/events",
        ])
        #expect(blocks["carol"] == [
            "topic readwrite owntracks/carol/#", "topic read whereabouts/receipts/carol/#",
            "topic read whereabouts/circles/family/view", "topic read whereabouts/circles/family/events",
            "topic read whereabouts-circles-family/#",
        ])
        #expect(blocks["whereabouts-sub"] == [
            "topic read owntracks/#", "topic write whereabouts/circles/#", "topic write whereabouts/receipts/#",
            "topic write whereabouts-circles-family/#",
        ])
        #expect(blocks["ops"] == ["topic read #"])
        #expect(Set(blocks.keys) == ["alice", "bob", "carol", "dave", "whereabouts-sub", "ops"])
    }

    @Test("Names are used exactly: a capitalised member gets a block and topics of that name; a name that is no topic level is refused")
    func exactNames() throws {
        let file = try CirclesFile.parse(yaml: """
            circles:
              - id: family
                members:
                  - {user: Eve, device: iPhone}
                  - {user: eve, device: phone}
            """)
        let acl = try AccessControlList(circles: file.circles).render()
        #expect(acl.contains("user Eve\ntopic readwrite owntracks/Eve/#\n"))
        #expect(acl.contains("user eve\ntopic readwrite owntracks/eve/#\n"))
        let plan = try DynamicSecurityPlan(circles: file.circles)
        #expect(plan.accounts["whereabouts-Eve-iPhone"]?.roles == ["whereabouts-user-Eve"])
        #expect(plan.roles["whereabouts-user-Eve"]?.contains(.init(type: "publishClientSend", topic: "owntracks/Eve/#")) == true)
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "nats-names")
        defer { try? FileManager.default.removeItem(at: directory) }
        let nats = try NATSAccounts(circles: file.circles).render(passwordDirectory: directory.path)
        #expect(nats.contains(#"user: "Eve""#) && nats.contains(#"publish: { allow: ["owntracks.Eve", "owntracks.Eve.>"] }"#))

        // Circles built in code (not read from a file) are held to the same rule.
        let bad = Circle(id: "family", name: "Family", members: [Member(user: "Eve Smith", device: "iPhone")])
        #expect(throws: AccessControlError.self) { try AccessControlList(circles: [bad]).render() }
        #expect(throws: AccessControlError.self) { try DynamicSecurityPlan(circles: [bad]) }
        #expect(throws: AccessControlError.self) { try NATSAccounts(circles: [bad]).render(passwordDirectory: directory.path) }
    }
}

extension AccessControlListTests {
    /// The circles file shipped as the example (`examples/circles.yaml`).
    static func exampleFile() throws -> CirclesFile {
        try CirclesFile.load(path: TestPaths.packageRoot.appendingPathComponent("examples/circles.yaml").path)
    }
}
