import Foundation
import Logging
import Subscriber
import WhereaboutsMQTT
import WhereaboutsCore
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// The broker login a phone gets.
struct BrokerCredentials: Sendable, Hashable {
    /// The account's user name.
    package var username: String
    /// Its password.
    package var password: String
    /// The client id the app must use (the dynamic security plugin refuses any other).
    package var clientID: String
}

/// Where an invite finds the accounts' store: at hand (files the broker reads), or mosquitto's
/// dynamic security plugin through an admin connection made before the invite touches anything
/// and closed after it (the command's `--accounts dynsec` and the dashboard's
/// `--invite-accounts dynsec` alike).
package enum AccountSource: Sendable {
    /// A store that needs no connection.
    case store(AccountStore)
    /// The dynamic security plugin, reached as its admin for each piece of work.
    case dynamicSecurity(AccountStore.DynamicSecurityAdmin)

    /// Runs `body` with the store (after connecting, for the plugin).
    func withStore<Result: Sendable>(_ body: (AccountStore) async throws -> Result) async throws -> Result {
        switch self {
        case .store(let store): try await body(store)
        case .dynamicSecurity(let admin): try await admin.withStore(body)
        }
    }
}

/// Where the members' broker accounts live, as the broker is configured
/// (broker/ACCESS-CONTROL.md, docs/cluster.md). Each case makes accounts with the generator the
/// matching command uses (`whereabouts-sub dynsec`, `acl`, `acl --format nats`), from the whole
/// circles file, so an invite never grants more or less than those commands would.
package enum AccountStore: Sendable {
    /// mosquitto's dynamic security plugin, changed live: one account per connection, bound to
    /// its client id, password in `<passwordDirectory>/whereabouts-<user>-<device>`.
    case dynamicSecurity(DynamicSecuritySync, passwordDirectory: String)
    /// A NATS accounts file (`users.conf`), rewritten and reloaded: one account per user,
    /// password in `<passwordDirectory>/<user>`.
    case nats(NATSAccountsFile)
    /// mosquitto's `acl_file` and `password_file` (through `mosquitto_passwd`), rewritten and
    /// reloaded: one account per user, password in `<passwordDirectory>/<user>`.
    case mosquitto(MosquittoAccountFiles)

    /// The accounts that read every topic or run the subscriber, which no member may be named like.
    package struct Roles: Sendable, Hashable {
        /// The subscriber's accounts.
        package var subscriberUsers: [String]
        /// The operators' accounts.
        package var operatorUsers: [String]
        /// Creates the roles.
        package init(subscriberUsers: [String] = ["whereabouts-sub"], operatorUsers: [String] = []) {
            self.subscriberUsers = subscriberUsers
            self.operatorUsers = operatorUsers
        }
    }

    /// How to reach the dynamic security plugin as its admin (``AccountSource/dynamicSecurity(_:)``).
    package struct DynamicSecurityAdmin: Sendable {
        /// The admin account's connection (a clean session, a client id of its own).
        package var connection: MQTTConfiguration
        /// What the plan is built from besides the circles; its password directory holds the
        /// members' passwords.
        package var settings: DynamicSecuritySync.Settings
        /// Where the sync logs what it changed.
        package var logger: Logger

        /// Creates the admin's settings.
        package init(connection: MQTTConfiguration, settings: DynamicSecuritySync.Settings, logger: Logger) {
            self.connection = connection
            self.settings = settings
            self.logger = logger
        }

        /// Connects as the admin, runs `body` with the plugin's store, and disconnects, also
        /// when `body` throws.
        func withStore<Result: Sendable>(_ body: (AccountStore) async throws -> Result) async throws -> Result {
            let client = MQTTClient(configuration: connection, logger: logger)
            try await client.connect()
            let store = AccountStore.dynamicSecurity(
                DynamicSecuritySync(control: DynamicSecurityControl(client: client), settings: settings, logger: logger),
                passwordDirectory: settings.passwordDirectory)
            do {
                let result = try await body(store)
                await client.disconnect()
                return result
            } catch {
                await client.disconnect()
                throw error
            }
        }
    }

    /// A NATS server's accounts file and the nodes to reload after writing it.
    package struct NATSAccountsFile: Sendable, Hashable {
        /// The accounts file (written with mode 0600: it holds passwords).
        package var path: String
        /// The folder of the accounts' passwords.
        package var passwordDirectory: String
        /// The subscriber's and operators' accounts, as given to `whereabouts-sub acl`.
        package var roles: Roles
        /// Files holding the process ids of the nats-server nodes to send SIGHUP.
        package var reloadPidFiles: [String]
        /// Creates the settings.
        package init(path: String, passwordDirectory: String, roles: Roles = Roles(), reloadPidFiles: [String] = []) {
            self.path = path
            self.passwordDirectory = passwordDirectory
            self.roles = roles
            self.reloadPidFiles = reloadPidFiles
        }
    }

    /// mosquitto's ACL and password files and the broker to reload after writing them.
    package struct MosquittoAccountFiles: Sendable, Hashable {
        /// The `acl_file`.
        package var aclPath: String
        /// The `password_file`, updated with `mosquitto_passwd` (created when missing).
        package var passwordFile: String
        /// The folder of the accounts' passwords in clear, one file per account.
        package var passwordDirectory: String
        /// The subscriber's and operators' accounts, as given to `whereabouts-sub acl`.
        package var roles: Roles
        /// A file holding mosquitto's process id, to send SIGHUP; `nil` to reload by hand.
        package var reloadPidFile: String?
        /// Creates the settings.
        package init(aclPath: String, passwordFile: String, passwordDirectory: String, roles: Roles = Roles(), reloadPidFile: String? = nil) {
            self.aclPath = aclPath
            self.passwordFile = passwordFile
            self.passwordDirectory = passwordDirectory
            self.roles = roles
            self.reloadPidFile = reloadPidFile
        }
    }

    /// Makes (or keeps) the accounts of `file`, in which `member` is listed, and returns the
    /// member device's login.
    func provision(_ member: Member, in file: CirclesFile, prefixes: TopicPrefixes) async throws -> BrokerCredentials {
        switch self {
        case .dynamicSecurity(let sync, let directory):
            let accounts = try DynamicSecurityPlan.deviceAccounts(of: member)
            let password = try PasswordDirectory(path: directory).password(for: accounts.device).password
            try await Self.refuseForeignDeletions(sync: sync, file: file, allowed: [])
            try await sync.apply(file)
            return BrokerCredentials(username: accounts.device, password: password, clientID: accounts.device)
        case .nats(let settings):
            try Self.write(natsAccounts: settings, file: file, prefixes: prefixes)
            let password = try PasswordDirectory(path: settings.passwordDirectory).password(for: member.user).password
            return BrokerCredentials(username: member.user, password: password, clientID: try DynamicSecurityPlan.deviceAccounts(of: member).device)
        case .mosquitto(let settings):
            let password = try PasswordDirectory(path: settings.passwordDirectory).password(for: member.user).password
            try Self.write(acl: settings, file: file, prefixes: prefixes)
            let exists = FileManager.default.fileExists(atPath: settings.passwordFile)
            try await Self.mosquittoPasswd((exists ? [] : ["-c"]) + ["-b", settings.passwordFile, member.user, password])
            try Self.reload(pidFile: settings.reloadPidFile)
            return BrokerCredentials(username: member.user, password: password, clientID: try DynamicSecurityPlan.deviceAccounts(of: member).device)
        }
    }

    /// Brings the accounts to `file`, from which `member` was removed, and deletes what only
    /// `member` used: its accounts and password file (for the per-user stores, only when the
    /// user has no other device left). Returns one line per thing done.
    func revoke(_ member: Member, leaving file: CirclesFile, prefixes: TopicPrefixes) async throws -> [String] {
        let userStays = file.memberIDs.contains { $0.user == member.user }
        switch self {
        case .dynamicSecurity(let sync, let directory):
            let accounts = try DynamicSecurityPlan.deviceAccounts(of: member)
            try await Self.refuseForeignDeletions(sync: sync, file: file, allowed: Set([accounts.device] + accounts.presence))
            try await sync.apply(file)
            var done = ["Deleted the broker accounts \(([accounts.device] + accounts.presence).joined(separator: ", ")) (their connections are closed)."]
            if Self.remove(directory, accounts.device) { done.append("Deleted the password file \(directory)/\(accounts.device).") }
            return done
        case .nats(let settings):
            try Self.write(natsAccounts: settings, file: file, prefixes: prefixes)
            guard !userStays else {
                return ["Rewrote \(settings.path) without the device; the account '\(member.user)' stays for the user's other devices (rotate its password to lock this phone out)."]
            }
            var done = ["Removed the account '\(member.user)' from \(settings.path) and reloaded the nodes."]
            if Self.remove(settings.passwordDirectory, member.user) { done.append("Deleted the password file \(settings.passwordDirectory)/\(member.user).") }
            return done
        case .mosquitto(let settings):
            try Self.write(acl: settings, file: file, prefixes: prefixes)
            guard !userStays else {
                try Self.reload(pidFile: settings.reloadPidFile)
                return ["Rewrote \(settings.aclPath) without the device; the account '\(member.user)' stays for the user's other devices (rotate its password to lock this phone out)."]
            }
            if FileManager.default.fileExists(atPath: settings.passwordFile) {
                try await Self.mosquittoPasswd(["-D", settings.passwordFile, member.user])
            }
            try Self.reload(pidFile: settings.reloadPidFile)
            var done = ["Removed the account '\(member.user)' from \(settings.passwordFile) and \(settings.aclPath)."]
            if Self.remove(settings.passwordDirectory, member.user) { done.append("Deleted the password file \(settings.passwordDirectory)/\(member.user).") }
            return done
        }
    }

    /// Refuses to apply `file` when the plugin would then delete an account other than `allowed`:
    /// the invite was given other `--subscriber-user`/`--operator-user` than `dynsec` was.
    private static func refuseForeignDeletions(sync: DynamicSecuritySync, file: CirclesFile, allowed: Set<String>) async throws {
        let outcome = try await sync.apply(file, dryRun: true)
        let deleted = outcome.commands.compactMap { text -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                  object["command"] as? String == "deleteClient" else { return nil }
            return object["username"] as? String
        }
        let foreign = deleted.filter { !allowed.contains($0) }.sorted()
        guard foreign.isEmpty else {
            throw ProvisioningError(
                "Applying the circles file would delete the broker account(s) \(foreign.joined(separator: ", ")). Give invite the same --subscriber-user and --operator-user as `whereabouts-sub dynsec`, or remove those accounts with dynsec first.")
        }
    }

    private static func write(natsAccounts settings: NATSAccountsFile, file: CirclesFile, prefixes: TopicPrefixes) throws {
        let text = try NATSAccounts(
            circles: file.circles, subscriberUsers: settings.roles.subscriberUsers, operatorUsers: settings.roles.operatorUsers,
            topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix
        ).render(passwordDirectory: settings.passwordDirectory)
        try write(text, to: settings.path, mode: 0o600)
        for pidFile in settings.reloadPidFiles { try reload(pidFile: pidFile) }
    }

    private static func write(acl settings: MosquittoAccountFiles, file: CirclesFile, prefixes: TopicPrefixes) throws {
        let text = try AccessControlList(
            circles: file.circles, subscriberUser: settings.roles.subscriberUsers.first ?? "whereabouts-sub",
            operatorUsers: settings.roles.operatorUsers, topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix
        ).render()
        try write(text, to: settings.aclPath, mode: 0o644)
    }

    private static func write(_ text: String, to path: String, mode: mode_t) throws {
        do {
            try AtomicFile.write(Data(text.utf8), to: path, mode: mode)
        } catch {
            throw ProvisioningError("Cannot write \(path): \(error.reason). Check that its folder exists and is writable.")
        }
    }

    /// Deletes `<directory>/<name>`; whether there was one.
    private static func remove(_ directory: String, _ name: String) -> Bool {
        (try? FileManager.default.removeItem(atPath: directory + "/" + name)) != nil
    }

    /// Runs Debian's `mosquitto_passwd` with `arguments`. `-b` puts the password on its command
    /// line, visible in `ps` for the instant it runs (the tool reads no other input without a terminal).
    /// Runs and waits for it on a thread of its own (``OwnThread``): reading its output to the end
    /// and `waitUntilExit()` block the calling thread, which must not be one of Swift concurrency's
    /// cooperative pool (two on a two-core machine) for as long as the tool runs.
    private static func mosquittoPasswd(_ arguments: [String]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            OwnThread.start(name: "mosquitto_passwd") {
                continuation.resume(with: Result { try mosquittoPasswdBlocking(arguments) })
            }
        }
    }

    /// ``mosquittoPasswd(_:)``, blocking the calling thread.
    private static func mosquittoPasswdBlocking(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        do { try process.run() } catch {
            throw ProvisioningError("mosquitto_passwd cannot be run (\(error)); install Debian's mosquitto package.")
        }
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ProvisioningError("mosquitto_passwd \(arguments.first ?? "") failed (status \(process.terminationStatus)): \(output.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// Sends SIGHUP (reload) to the process whose id `pidFile` holds.
    private static func reload(pidFile: String?) throws {
        guard let pidFile else { return }
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0 else {
            throw ProvisioningError("The pid file \(pidFile) does not hold a process id.")
        }
        guard kill(pid, SIGHUP) == 0 else {
            throw ProvisioningError("Could not signal process \(pid) of \(pidFile) to reload: \(String(cString: strerror(errno))).")
        }
    }
}

/// The topic roots an invite writes into the app's configuration: the members' own topics and
/// the circle views (the same flags as `whereabouts-sub acl` and `dynsec`).
package struct TopicPrefixes: Sendable, Hashable {
    /// The first level of the members' topics (`owntracks`).
    package var topicPrefix: String
    /// The prefix of the circle views and trees (`whereabouts/circles`).
    package var viewPrefix: String
    /// Creates the prefixes.
    package init(topicPrefix: String = "owntracks", viewPrefix: String = "whereabouts/circles") {
        self.topicPrefix = topicPrefix
        self.viewPrefix = viewPrefix
    }
}
