import ArgumentParser
import CommandLineDialect
import CommandLineSupport
import Dashboard
import Foundation
import Provisioning

/// `whereabouts-sub run --invite-accounts ...`: the dashboard's invite dialog, which makes the
/// same invites as `whereabouts-sub invite` (``Inviter``) for accounts that administer a circle
/// (docs/owntracks.md, "Add a phone"). The accounts live in files the running subscriber can
/// rewrite: mosquitto's ACL and password files, or a NATS accounts file. The dynamic security
/// plugin needs its admin connection, which the subscriber does not hold: invite with the command.
struct DashboardInviteOptions: ParsableArguments {
    /// The keys a `--config` file accepts for these flags.
    static let configKeys: [ConfigKey] = [
        .word("invite-accounts", Accounts.self),
        ConfigKey("invite-password-dir", .string),
        ConfigKey("invite-acl-file", .string),
        ConfigKey("invite-mosquitto-password-file", .string),
        ConfigKey("invite-nats-accounts", .string),
        ConfigKey("invite-reload-pid-file", .string),
        ConfigKey("invite-app-broker", .string),
        ConfigKey("invite-subscriber-user", .string),
        ConfigKey("invite-operator-user", .string),
    ]

    /// Where the members' broker accounts live, for the dashboard's invites.
    enum Accounts: String, ExpressibleByArgument, CaseIterable {
        case mosquitto, nats
    }

    @Option(help: ArgumentHelp(
        "Let circle admins (the users file's admin:) invite phones from the dashboard, with the members' broker accounts in mosquitto's ACL and password files (--invite-acl-file, --invite-mosquitto-password-file) or a NATS accounts file (--invite-nats-accounts), as the invite command does. Needs --http-port, --users and --invite-password-dir.",
        valueName: "mosquitto|nats"))
    var inviteAccounts: Accounts?

    @Option(help: ArgumentHelp("With --invite-accounts: the folder of the broker accounts' passwords (the same folder the invite command writes).", valueName: "dir"))
    var invitePasswordDir: String?

    @Option(help: ArgumentHelp("With --invite-accounts mosquitto: the acl_file to rewrite.", valueName: "file"))
    var inviteAclFile: String?

    @Option(help: ArgumentHelp("With --invite-accounts mosquitto: the password_file to update with mosquitto_passwd.", valueName: "file"))
    var inviteMosquittoPasswordFile: String?

    @Option(help: ArgumentHelp("With --invite-accounts nats: the NATS accounts file to rewrite.", valueName: "file"))
    var inviteNatsAccounts: String?

    @Option(help: ArgumentHelp("With --invite-accounts: a file holding the broker's process id (each NATS node: repeat) to send SIGHUP after writing the files.", valueName: "file"))
    var inviteReloadPidFile: [String] = []

    @Option(help: ArgumentHelp("With --invite-accounts: the broker as the phones reach it, mqtt://HOST[:PORT] or mqtts://HOST[:PORT]. Default: the first URL of --broker.", valueName: "url"))
    var inviteAppBroker: String?

    @Option(help: "With --invite-accounts: the subscriber's account in the generated access control; repeat for several shards. Default: --username, else whereabouts-sub.")
    var inviteSubscriberUser: [String] = []

    @Option(help: "With --invite-accounts: an account that may read every topic (as given to acl); repeat for several.")
    var inviteOperatorUser: [String] = []

    func validate() throws {
        guard let inviteAccounts else {
            let given = invitePasswordDir != nil || inviteAclFile != nil || inviteMosquittoPasswordFile != nil || inviteNatsAccounts != nil
                || !inviteReloadPidFile.isEmpty || inviteAppBroker != nil || !inviteSubscriberUser.isEmpty || !inviteOperatorUser.isEmpty
            if given { throw ValidationError("The --invite-... options go with --invite-accounts mosquitto or nats.") }
            return
        }
        guard let invitePasswordDir else { throw ValidationError("--invite-accounts needs --invite-password-dir: the folder of the broker accounts' passwords.") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: invitePasswordDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--invite-password-dir \(invitePasswordDir) is not a folder; create it (mode 0700).")
        }
        switch inviteAccounts {
        case .mosquitto:
            guard inviteAclFile != nil, inviteMosquittoPasswordFile != nil else {
                throw ValidationError("--invite-accounts mosquitto needs --invite-acl-file and --invite-mosquitto-password-file: the files mosquitto's acl_file and password_file name.")
            }
            if inviteReloadPidFile.count > 1 { throw ValidationError("--invite-accounts mosquitto reloads one broker: give --invite-reload-pid-file once.") }
        case .nats:
            guard inviteNatsAccounts != nil else { throw ValidationError("--invite-accounts nats needs --invite-nats-accounts: the accounts file the NATS nodes include.") }
        }
        if let inviteAppBroker {
            do { _ = try BrokerAddress(parsing: inviteAppBroker) } catch { throw ValidationError("--invite-app-broker: \(error.description)") }
        }
    }

    /// The dashboard's invite desk, or `nil` without `--invite-accounts`.
    func desk(circlesPath: String, broker: BrokerOptions, prefixes: TopicPrefixOptions) throws -> InviteDesk? {
        guard let inviteAccounts, let invitePasswordDir else { return nil }
        let address = try inviteAppBroker.map { try BrokerAddress(parsing: $0) } ?? broker.address()
        let roles = AccountStore.Roles(
            subscriberUsers: inviteSubscriberUser.isEmpty ? [broker.username ?? "whereabouts-sub"] : inviteSubscriberUser,
            operatorUsers: inviteOperatorUser)
        let store: AccountStore = switch inviteAccounts {
        case .mosquitto:
            .mosquitto(.init(
                aclPath: inviteAclFile ?? "", passwordFile: inviteMosquittoPasswordFile ?? "", passwordDirectory: invitePasswordDir,
                roles: roles, reloadPidFile: inviteReloadPidFile.first))
        case .nats:
            .nats(.init(path: inviteNatsAccounts ?? "", passwordDirectory: invitePasswordDir, roles: roles, reloadPidFiles: inviteReloadPidFile))
        }
        return InviteDesk(inviter: Inviter(
            settings: .init(
                circlesPath: circlesPath, host: address.host, port: address.port, tls: address.usesTLS,
                prefixes: TopicPrefixes(topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix)),
            accounts: store))
    }
}
