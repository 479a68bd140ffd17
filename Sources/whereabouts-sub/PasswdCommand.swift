import ArgumentParser
import Dashboard
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `whereabouts-sub passwd`: sets a dashboard account's password (a bcrypt hash) in the users file.
struct PasswdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Set a dashboard account's password in the users file (--users), creating either when missing.",
        discussion: """
            The password is read from the terminal (asked twice, not echoed) or, when standard input \
            is not a terminal, as its first line (`printf '%s\\n' "$PASSWORD" | whereabouts-sub passwd ...`). \
            Only its bcrypt hash is written. The file is rewritten whole, sorted by user, readable by its \
            owner only; comments are not kept. A running whereabouts-sub rereads it within a second, and \
            the account's open sessions end when its password changes. See docs/dashboard.md, "Login".
            """
    )

    /// The shortest password accepted.
    static let minimumLength = 8

    @Option(help: ArgumentHelp("The users file to update (created when missing).", valueName: "file"))
    var users: String

    @Option(help: ArgumentHelp("The account's user name; for a member, their OwnTracks user name, so that they see their own circles and history.", valueName: "name"))
    var user: String

    @Option(help: ArgumentHelp("The bcrypt cost: 2^cost rounds. Each step doubles the time a check takes (12 is about 0.25 s on one core).", valueName: "4-31"))
    var cost: Int = PasswordHashing.defaultCost

    func validate() throws {
        guard PasswordHashing.costs.contains(cost) else { throw ValidationError("--cost must be 4 to 31 (default \(PasswordHashing.defaultCost)).") }
        if cost < 10 { FileHandle.standardError.write(Data("warning: --cost \(cost) is below 10, which makes guessing passwords from a stolen users file cheap; use it for tests only.\n".utf8)) }
    }

    func run() async throws {
        var file = UsersFile()
        if FileManager.default.fileExists(atPath: users) {
            do { file = try UsersFile.load(path: users) } catch { throw ValidationError("\(error)") }
        }
        let password = try readPassword()
        guard password.count >= Self.minimumLength else {
            throw ValidationError("The password must have at least \(Self.minimumLength) characters.")
        }
        let hash = await PasswordHashing.hash(password, cost: cost)
        let isNew = file.accounts[user] == nil
        do {
            file = try file.settingPassword(hash, for: user)
            try file.write(to: users)
        } catch {
            throw ValidationError("\(error)")
        }
        print(isNew ? "Added the account '\(user)' to \(users)." : "Changed the password of '\(user)' in \(users).")
    }

    /// The password from the terminal (twice) or standard input's first line.
    private func readPassword() throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else {
                throw ValidationError("No password on standard input: pipe it in as one line, or run passwd in a terminal.")
            }
            return line
        }
        guard let first = getpass("Password for \(user): ").map({ String(cString: $0) }),
              let second = getpass("Again: ").map({ String(cString: $0) }) else {
            throw ValidationError("Could not read the password from the terminal.")
        }
        guard first == second else { throw ValidationError("The two passwords differ; nothing was changed.") }
        return first
    }
}
