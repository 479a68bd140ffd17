import Foundation
import Testing
@testable import Provisioning
import Subscriber
import WhereaboutsTestSupport

@Suite("NATS accounts from the circles file")
struct NATSAccountsTests {
    @Test("MQTT filters become NATS subjects: / is ., + is *, a final # is the parent and >")
    func subjects() {
        #expect(NATSAccounts.subjects("owntracks/alice/#") == ["owntracks.alice", "owntracks.alice.>"])
        #expect(NATSAccounts.subjects("owntracks/+/+") == ["owntracks.*.*"])
        #expect(NATSAccounts.subjects("whereabouts/circles/family/view") == ["whereabouts.circles.family.view"])
        #expect(NATSAccounts.subjects("#") == [">"])
    }

    @Test("Each member publishes only its own subjects; passwords come from the folder or are generated there, mode 0600")
    func accounts() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "nats-accounts")
        defer { try? FileManager.default.removeItem(at: directory) }
        try "kept-password\n".write(to: directory.appendingPathComponent("alice"), atomically: true, encoding: .utf8)
        let file = try CirclesFile.parse(yaml: """
            circles:
              - id: family
                members:
                  - {user: alice, device: phone}
                  - {user: bob, device: phone}
            """)
        let text = try NATSAccounts(circles: file.circles, operatorUsers: ["ops"]).render(passwordDirectory: directory.path)
        #expect(text.contains(#"user: "alice", password: "kept-password""#))
        #expect(text.contains(#"publish: { allow: ["owntracks.bob", "owntracks.bob.>"] }"#))
        #expect(text.contains(#"publish: { deny: [">"] }"#), "the operator reads only")
        // Receipts (docs/receipts.md): the subscriber writes them, each member reads its own.
        #expect(text.contains(#"publish: { allow: ["whereabouts.circles", "whereabouts.circles.>", "whereabouts.receipts", "whereabouts.receipts.>"] }"#))
        #expect(text.contains(#"subscribe: { allow: ["owntracks.bob", "owntracks.bob.>", "whereabouts.receipts.bob", "whereabouts.receipts.bob.>", "#))
        #expect(!text.contains(#""whereabouts.receipts.alice", "whereabouts.receipts.alice.>", "whereabouts.receipts.bob"#))
        #expect(!text.contains(#"allow: ["owntracks.alice", "owntracks.alice.>", "owntracks.bob"#))
        let generated = try String(contentsOf: directory.appendingPathComponent("bob"), encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(generated.count == 24 && text.contains(#"user: "bob", password: "\#(generated)""#))
        let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("bob").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("A name NATS cannot carry, or a member named like the subscriber, is refused")
    func refusals() throws {
        let dotted = try CirclesFile.parse(yaml: "circles:\n  - id: c\n    members:\n      - {user: al.ice, device: phone}\n")
        #expect(throws: AccessControlError.self) { try NATSAccounts(circles: dotted.circles).render(passwordDirectory: "/nonexistent") }
        let clash = try CirclesFile.parse(yaml: "circles:\n  - id: c\n    members:\n      - {user: whereabouts-sub, device: phone}\n")
        #expect(throws: AccessControlError.self) { try NATSAccounts(circles: clash.circles).render(passwordDirectory: "/nonexistent") }
    }
}
