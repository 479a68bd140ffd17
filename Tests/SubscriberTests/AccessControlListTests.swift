import Testing
@testable import Subscriber

@Suite("Access control list")
struct AccessControlListTests {
    @Test("Each member writes only their own topics and reads only their circles' views (and trees, where a circle has one)")
    func rules() throws {
        let acl = try AccessControlList(circles: try Build.exampleFile().circles, operatorUsers: ["ops"]).render()
        let blocks = Dictionary(uniqueKeysWithValues: acl.components(separatedBy: "\n\n").compactMap { block -> (String, [String])? in
            let lines = block.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
            guard let user = lines.first, user.hasPrefix("user ") else { return nil }
            return (String(user.dropFirst(5)), Array(lines.dropFirst()))
        })
        #expect(blocks["bob"] == [
            "topic readwrite owntracks/bob/#", "topic read whereabouts/receipts/bob/#",
            "topic read whereabouts/circles/family/view", "topic read whereabouts/circles/family/events",
            "topic read whereabouts/circles/family/owntracks/#",
            "topic read whereabouts/circles/field-team/view", "topic read whereabouts/circles/field-team/events",
        ])
        #expect(blocks["carol"] == [
            "topic readwrite owntracks/carol/#", "topic read whereabouts/receipts/carol/#",
            "topic read whereabouts/circles/family/view", "topic read whereabouts/circles/family/events",
            "topic read whereabouts/circles/family/owntracks/#",
        ])
        #expect(blocks["whereabouts-sub"] == [
            "topic read owntracks/#", "topic write whereabouts/circles/#", "topic write whereabouts/receipts/#",
        ])
        #expect(blocks["ops"] == ["topic read #"])
        #expect(Set(blocks.keys) == ["alice", "bob", "carol", "dave", "whereabouts-sub", "ops"])
    }
}
