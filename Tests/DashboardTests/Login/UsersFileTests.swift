import Testing
@testable import Dashboard

/// The users file read through WhereaboutsYAML: what it accepts and the errors it names.
@Suite("Users file")
struct UsersFileTests {
    static let hash = "$2b$04$" + String(repeating: "a", count: 53)

    @Test("Accounts, their circles and admin circles are read; the written file reads back the same")
    func roundTrip() throws {
        let text = """
            users:
              alice:
                password: "\(Self.hash)"
              123:
                password: '\(Self.hash)'
                circles: [family, 42]
                admin: [family]
            """
        let file = try UsersFile.parse(text, path: "u")
        #expect(file.accounts.keys.sorted() == ["123", "alice"])
        #expect(file.accounts["123"]?.circles == ["family", "42"])
        #expect(file.accounts["123"]?.admin == ["family"])
        #expect(file.accounts["alice"]?.circles == nil)
        #expect(try UsersFile.parse(file.yaml(), path: "u") == file)
    }

    @Test("An empty file, or `users:` with nothing under it, has no accounts", arguments: ["", "# none\n", "users:\n", "users: ~\n"])
    func empty(text: String) throws {
        #expect(try UsersFile.parse(text, path: "u").accounts.isEmpty)
    }

    @Test("Mistakes are errors that say what to fix", arguments: [
        ("users:\n  alice:\n    password: \"\(hash)\"\n  alice:\n    password: \"\(hash)\"\n", "users.alice appears twice (lines 2 and 4)"),
        ("users:\n  alice:\n    password: \"\(hash)\"\n    password: x\n", "users.alice.password appears twice"),
        ("users:\n  alice:\n    password: secret\n", "users.alice.password is not a bcrypt hash"),
        ("users:\n  alice:\n    circles: [a]\n", "users.alice.password is missing"),
        ("users:\n  alice:\n    password: \"\(hash)\"\n    circles: [a, [b]]\n", "users.alice.circles must be a list of circle ids"),
        ("users:\n  alice:\n    password: \"\(hash)\"\n    circles: family\n", "users.alice.circles must be a list of circle ids"),
        ("users:\n  alice:\n    password: \"\(hash)\"\n    colour: red\n", "users.alice.colour is not a known key"),
        ("accounts: {}\n", "must be a mapping with one key, `users`"),
        ("users: [alice]\n", "`users` must map each user name"),
        ("users:\n  alice: &a\n    password: \"\(hash)\"\n  bob: *a\n", "line 4, column 8: the alias `*a` is not supported"),
        ("users:\n  alice:\n  password: [\n", "is not valid YAML: line 4, column 1"),
    ])
    func errors(text: String, says: String) {
        do {
            _ = try UsersFile.parse(text, path: "u")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.hasPrefix("users file u: ") && error.description.contains(says), "\(error)")
        }
    }
}
