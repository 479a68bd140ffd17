import Subscriber
import Foundation
import Logging
import WhereaboutsMQTT

/// Makes the broker's dynamic security plugin hold the accounts and roles of a circles file, and
/// keeps it so while the file changes (`whereabouts-sub dynsec --watch`).
package struct DynamicSecuritySync: Sendable {
    /// What the plan is built from besides the circles.
    package struct Settings: Sendable, Hashable {
        /// The subscriber's accounts (one per shard instance).
        package var subscriberUsers: [String]
        /// Accounts that read every topic.
        package var operatorUsers: [String]
        /// Accounts the generator must never create or touch (the admin account it logs in with).
        package var reservedUsers: [String]
        /// The members' topic root.
        package var topicPrefix: String
        /// The views' topic prefix.
        package var viewPrefix: String
        /// Where each new account's password is read from (`<dir>/<account>`, first line), or
        /// written to, freshly generated, when the file does not exist.
        package var passwordDirectory: String

        /// Creates settings; every argument but the password directory has a default.
        package init(
            subscriberUsers: [String] = ["whereabouts-sub"], operatorUsers: [String] = [], reservedUsers: [String] = [],
            topicPrefix: String = "owntracks", viewPrefix: String = "whereabouts/circles", passwordDirectory: String
        ) {
            self.subscriberUsers = subscriberUsers
            self.operatorUsers = operatorUsers
            self.reservedUsers = reservedUsers
            self.topicPrefix = topicPrefix
            self.viewPrefix = viewPrefix
            self.passwordDirectory = passwordDirectory
        }
    }

    /// What one apply changed.
    package struct Outcome: Sendable, Hashable {
        /// The commands sent (passwords shown as `***`), or that would be sent with `dryRun`.
        package var commands: [String]
        /// Accounts that can still take over client ids, and what to do about it.
        var warnings: [String]
    }

    private let control: DynamicSecurityControl
    private let settings: Settings
    private let logger: Logger

    /// Uses `control` (an admin connection) with `settings`.
    package init(control: DynamicSecurityControl, settings: Settings, logger: Logger) {
        self.control = control
        self.settings = settings
        self.logger = logger
    }

    /// The plan for `file`; throws on name collisions.
    func plan(for file: CirclesFile) throws(AccessControlError) -> DynamicSecurityPlan {
        try DynamicSecurityPlan(
            circles: file.circles, subscriberUsers: settings.subscriberUsers, operatorUsers: settings.operatorUsers,
            reservedUsers: settings.reservedUsers, topicPrefix: settings.topicPrefix, viewPrefix: settings.viewPrefix)
    }

    /// Reads what the plugin holds and sends the commands that make it hold the plan for `file`
    /// (nothing but the reading with `dryRun`). Throws when a command is refused.
    @discardableResult
    package func apply(_ file: CirclesFile, dryRun: Bool = false) async throws -> Outcome {
        let plan = try plan(for: file)
        let snapshot = try await control.snapshot()
        let (commands, warnings) = try snapshot.commands(toReach: plan) { account in
            try dryRun ? "" : password(for: account)
        }
        for warning in warnings { logger.warning("\(warning)") }
        let outcome = Outcome(commands: commands.map(\.description), warnings: warnings)
        guard !dryRun else { return outcome }
        let answers = try await control.send(commands)
        let refused = zip(commands, answers).compactMap { command, answer in
            answer.error.map { "\(command.command) \(command.username ?? command.rolename ?? ""): \($0)" }
        }
        guard refused.isEmpty else {
            throw AccessControlError("The broker refused \(refused.count) dynamic security command(s): \(refused.joined(separator: "; ")).")
        }
        let changes = commands.count - 1  // the default ACL access is set every time
        logger.info(
            "Dynamic security matches the circles file.",
            metadata: ["whereabouts.accounts": "\(plan.accounts.count)", "whereabouts.roles": "\(plan.roles.count)", "whereabouts.changes": "\(changes)"])
        return outcome
    }

    /// Applies `path` now, then again each time it changes (polled every `pollInterval` seconds)
    /// or the process gets SIGHUP, until cancelled. A file that does not parse, or an apply that
    /// fails, is logged and the broker keeps what it has.
    package func watch(path: String, pollInterval: Double = 1) async {
        let watcher = CirclesFileWatcher(path: path, pollInterval: pollInterval, brokerKind: .mosquitto, logger: logger)
        let apply: @Sendable (CirclesFile) async -> Void = { file in
            do {
                try await self.apply(file)
            } catch {
                logger.error("The broker's dynamic security was not updated.", metadata: ["whereabouts.error": "\(error)"])
            }
        }
        // A change made while the first apply runs would be in the watcher's starting stamp and
        // never seen: apply again until the file holds still across an apply.
        var stamp = CirclesFileWatcher.stamp(of: path)
        await watcher.load(reason: "start", reload: apply)
        while !Task.isCancelled, CirclesFileWatcher.stamp(of: path) != stamp {
            stamp = CirclesFileWatcher.stamp(of: path)
            await watcher.load(reason: "changed", reload: apply)
        }
        await watcher.watch(reload: apply)
    }

    /// The password of a new account (``PasswordDirectory``), logging one it had to generate.
    private func password(for account: DynamicSecurityPlan.Account) throws -> String {
        let (password, generated) = try PasswordDirectory(path: settings.passwordDirectory).password(for: account.passwordName)
        if generated {
            logger.info(
                "Generated a password for a new broker account.",
                metadata: ["whereabouts.account": "\(account.username)", "whereabouts.file": "\(settings.passwordDirectory)/\(account.passwordName)"])
        }
        return password
    }
}
