import Foundation
import WhereaboutsCore
import WhereaboutsYAML
import SystemSupport

/// The dashboard's accounts (`--users FILE`), a YAML file:
///
///     users:
///       alice:
///         password: "$2b$12$..."     # written by `whereabouts-sub passwd`
///       bob:
///         password: "$2b$12$..."
///         circles: [family, work]    # optional; default: every circle with a member whose user is bob
///         admin: [family]            # optional; circles whose members' history bob may read, and where he may invite
///
/// Unknown keys, wrong types and hashes that are not bcrypt are errors that name the user and key.
package struct UsersFile: Sendable, Hashable {
    /// The accounts by name.
    package private(set) var accounts: [String: Account]

    /// An empty users file.
    package init(accounts: [String: Account] = [:]) {
        self.accounts = accounts
    }

    /// The longest user name accepted.
    static let maxNameLength = 64

    /// Reads and checks the file at `path`.
    package static func load(path: String) throws(UsersFileError) -> UsersFile {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw UsersFileError(path: path, "cannot be read (\(error.localizedDescription)); create it with `whereabouts-sub passwd --users \(path) --user NAME`.")
        }
        return try parse(text, path: path)
    }

    /// Parses users-file text; `path` only names the file in errors.
    ///
    /// User names and circle ids are read as the text written (`123` is the name "123"); a key
    /// given twice is an error naming both lines.
    static func parse(_ text: String, path: String) throws(UsersFileError) -> UsersFile {
        let root: YAMLNode?
        do { root = try YAMLDocument.parse(text) } catch {
            throw UsersFileError(path: path, "is not valid YAML: \(error).")
        }
        guard let root, !root.isNull else { return UsersFile() }
        guard case .mapping(let top, _) = root, top.allSatisfy({ $0.key.text == "users" }) else {
            throw UsersFileError(path: path, "must be a mapping with one key, `users`, holding the accounts by name.")
        }
        try checkUnique(root, in: "", path: path)
        guard let users = root["users"], !users.isNull else { return UsersFile() }
        guard case .mapping(let entries, _) = users else {
            throw UsersFileError(path: path, "`users` must map each user name to its password, circles and admin.")
        }
        try checkUnique(users, in: "users.", path: path)
        var accounts: [String: Account] = [:]
        for entry in entries {
            guard case .scalar(let key) = entry.key, !key.isNull else {
                throw UsersFileError(path: path, "`users` must map each user name to its password, circles and admin (line \(entry.key.mark.line)).")
            }
            let name = key.text
            try checkName(name, path: path)
            guard case .mapping(let fields, _) = entry.value else {
                throw UsersFileError(path: path, "users.\(name) must be a mapping with `password` (and optionally `circles`, `admin`).")
            }
            if let unknown = fields.map({ $0.key.text ?? "?" }).filter({ !["password", "circles", "admin"].contains($0) }).sorted().first {
                throw UsersFileError(path: path, "users.\(name).\(unknown) is not a known key; use password, circles or admin.")
            }
            try checkUnique(entry.value, in: "users.\(name).", path: path)
            guard case .scalar(let password)? = entry.value["password"], !password.isNull else {
                throw UsersFileError(path: path, "users.\(name).password is missing; set it with `whereabouts-sub passwd --users \(path) --user \(name)`.")
            }
            let hash = password.text
            guard PasswordHashing.isHash(hash) else {
                throw UsersFileError(path: path, "users.\(name).password is not a bcrypt hash; set it with `whereabouts-sub passwd --users \(path) --user \(name)` (never write a plain password here).")
            }
            let circles = try circleList(entry.value["circles"], key: "users.\(name).circles", path: path)
            let admin = try circleList(entry.value["admin"], key: "users.\(name).admin", path: path) ?? []
            accounts[name] = Account(name: name, passwordHash: hash, circles: circles, admin: admin)
        }
        return UsersFile(accounts: accounts)
    }

    /// Refuses a mapping that names a key twice (an account, or a field of one): which of the two
    /// counts would be a guess.
    private static func checkUnique(_ mapping: YAMLNode, in prefix: String, path: String) throws(UsersFileError) {
        guard case let (repeated, first)? = mapping.repeatedKey else { return }
        throw UsersFileError(
            path: path, "\(prefix)\(repeated.text ?? "?") appears twice (lines \(first.line) and \(repeated.mark.line)); keep one.")
    }

    private static func checkName(_ name: String, path: String) throws(UsersFileError) {
        guard !name.isEmpty, name.count <= maxNameLength, !name.contains(where: { $0.isNewline || $0 == ":" || $0.asciiValue.map { $0 < 32 } == true }) else {
            throw UsersFileError(path: path, "the user name '\(name.prefix(maxNameLength))' must be 1 to \(maxNameLength) characters without ':' or control characters.")
        }
    }

    private static func circleList(_ value: YAMLNode?, key: String, path: String) throws(UsersFileError) -> [String]? {
        guard let value, !value.isNull else { return nil }
        var ids: [String] = []
        for item in value.items ?? [value] {
            guard case .sequence = value, case .scalar(let id) = item, !id.isNull else {
                throw UsersFileError(path: path, "\(key) must be a list of circle ids, such as [family, work].")
            }
            ids.append(id.text)
        }
        return ids
    }

    /// This file with `name`'s password hash set to `hash` (a new account when there is none).
    package func settingPassword(_ hash: String, for name: String) throws(UsersFileError) -> UsersFile {
        try Self.checkName(name, path: "(new)")
        var copy = self
        var account = accounts[name] ?? Account(name: name, passwordHash: hash)
        account.passwordHash = hash
        copy.accounts[name] = account
        return copy
    }

    /// The file as YAML, accounts sorted by name. Comments of the file it was read from are not
    /// kept.
    package func yaml() -> String {
        var lines = ["# Dashboard accounts for whereabouts-sub --users (docs/dashboard.md, \"Login\").",
                     "# Passwords are bcrypt hashes written by `whereabouts-sub passwd`.", "users:"]
        for account in accounts.values.sorted(by: { $0.name < $1.name }) {
            lines.append("  \(Self.quoted(account.name)):")
            lines.append("    password: \(Self.quoted(account.passwordHash))")
            if let circles = account.circles { lines.append("    circles: [\(circles.map(Self.quoted).joined(separator: ", "))]") }
            if !account.admin.isEmpty { lines.append("    admin: [\(account.admin.map(Self.quoted).joined(separator: ", "))]") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes ``yaml()`` to `path` atomically (a new file renamed over the old one), readable by
    /// the owner only.
    package func write(to path: String) throws(UsersFileError) {
        do {
            try AtomicFile.write(Data(yaml().utf8), to: path, mode: 0o600)
        } catch {
            throw UsersFileError(path: path, "cannot be written (\(error.reason)); check the folder exists and is writable.")
        }
    }

    /// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
    private static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}

/// Why a users file could not be read or written; the message says what to fix.
package struct UsersFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file concerned.
    package var path: String
    /// A sentence saying what is wrong and how to fix it.
    package var message: String

    /// Creates an error about `path`.
    package init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    /// `users file <path>: <message>`.
    package var description: String { "users file \(path): \(message)" }
}
