import Foundation
import Testing
@testable import Subscriber
import WhereaboutsTestSupport

@Suite("Circles file")
struct CirclesFileTests {
    @Test("The example circles file has three circles with overlapping members")
    func exampleFile() throws {
        let file = try CirclesFile.load(path: Fixture.exampleCircles)
        #expect(file.circles.map(\.id) == ["family", "field-team", "carpool"])
        #expect(file.memberIDs.count == 4)
        let bob = MemberID(user: "bob", device: "phone")
        #expect(file.circles.filter { $0.members.contains { $0.id == bob } }.count == 2)
        #expect(file.circles[0].members[0].color == "#e6194b")
    }

    @Test("A member without a name is labelled with the user name")
    func defaultName() throws {
        let file = try CirclesFile.parse(yaml: """
            circles:
              - id: a
                members:
                  - {user: alice, device: phone}
            """)
        #expect(file.circles[0].name == "a")
        #expect(file.circles[0].members[0].name == "alice")
    }

    @Test("Errors name the key and the line", arguments: [
        ("circles:\n  - id: a\n    members:\n      - user: alice\n        device: phone\n        colour: red\n",
         6, "circles[0].members[0].colour"),
        ("circles:\n  - id: A\n    members: []\n", 2, "circles[0].id"),
        ("circles:\n  - id: a\n    members:\n      - user: alice\n", 4, "circles[0].members[0].device"),
        ("circles:\n  - id: a\n    members:\n      - {user: al/ice, device: p}\n", 4, "circles[0].members[0].user"),
        ("circles:\n  - id: a\n    members: []\n  - id: a\n    members: []\n", 4, "circles[1].id"),
        ("circles:\n  - id: a\n    members:\n      - {user: a, device: p, color: '#12345'}\n", 4, "circles[0].members[0].color"),
        ("circles:\n  - id: a\n    members:\n      - {user: a, device: p}\n      - {user: a, device: p}\n", 5, "circles[0].members[1]"),
        ("circles: 5\n", 1, "circles"),
        ("circle:\n  - id: a\n", 1, "circle"),
    ])
    func errors(yaml: String, line: Int, key: String) {
        #expect {
            try CirclesFile.parse(yaml: yaml)
        } throws: { error in
            let error = error as! CirclesFileError
            return error.line == line && error.key == key
        }
    }

    @Test("A file nesting deeper than any circles file needs is refused with its line, not a stack overflow", arguments: [
        String(repeating: "[", count: 20_000),  // found by the circles fuzz harness: a stack overflow in Yams, the reader before libyaml
        "circles:\n" + String(repeating: "- ", count: 10_000) + "x\n",
        "circles: [" + String(repeating: "{a: [", count: 40) + "\n",
    ])
    func deepNesting(yaml: String) {
        #expect {
            try CirclesFile.parse(yaml: yaml)
        } throws: { error in
            let error = error as! CirclesFileError
            return error.message.contains("nests more than 64 levels") && error.line != nil
        }
    }

    @Test("Deep nesting is counted outside quotes and comments only")
    func nestingInStrings() throws {
        let yaml = """
            circles:
              - id: family
                name: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['
                members: [{user: alice, device: phone, name: "Alice {{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{"}]  # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[
            """
        let file = try CirclesFile.parse(yaml: yaml)
        #expect(file.circles.first?.members.count == 1)
    }

    @Test("Invalid YAML is reported with its line")
    func syntax() {
        #expect {
            try CirclesFile.parse(yaml: "circles:\n  - id: a\n   members: [\n")
        } throws: { error in
            let error = error as! CirclesFileError
            return error.line == 3 && error.message.hasPrefix("The circles file is not valid YAML at column 4: ")
        }
    }
}

enum Fixture {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let exampleCircles = packageRoot.appendingPathComponent("examples/circles.yaml").path
    static let sharedTraces = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/traces")
}

@Suite("Circles file: change detection")
struct CirclesFileStampTests {
    @Test("A file replaced by one of the same size within the same second still gets a new stamp (new inode); an unchanged file keeps its stamp; a missing one has none")
    func replacementSeen() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "stamp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("circles.yaml").path
        try Data("a: 1\n".utf8).write(to: URL(fileURLWithPath: path))
        let first = try #require(CirclesFileWatcher.stamp(of: path))
        #expect(CirclesFileWatcher.stamp(of: path) == first)
        #expect(first.size == 5)
        // What an editor or `whereabouts-sub` itself does: write beside, rename over.
        let beside = folder.appendingPathComponent("circles.yaml.new").path
        try Data("b: 2\n".utf8).write(to: URL(fileURLWithPath: beside))
        #expect(rename(beside, path) == 0)
        let second = try #require(CirclesFileWatcher.stamp(of: path))
        #expect(second.size == first.size)
        #expect(second != first)
        #expect(second.inode != first.inode)
        try FileManager.default.removeItem(atPath: path)
        #expect(CirclesFileWatcher.stamp(of: path) == nil)
    }
}
