import ArgumentParser
import CommandLineDialect
import CommandLineSupport
import Dashboard
import Foundation
import Logging
import Provisioning
import WhereaboutsMQTT

/// `whereabouts-sub run --invite-accounts ...`: the dashboard's invite dialog, which makes the
/// same invites as `whereabouts-sub invite` (``Inviter``) for accounts that administer a circle
/// (docs/owntracks.md, "Add a phone"). The accounts live in files the running subscriber can
/// rewrite: mosquitto's ACL and password files, or a NATS accounts file. The dynamic security
/// plugin needs its admin connection, which the subscriber does not hold: invite with the command.
struct DashboardInviteOptions: ParsableArguments {
    /// The keys a `--config` file accepts for these flags.
    static let configKeys: [ConfigKey] = [
        .word("invite-accounts", InviteAccountKind.self),
        ConfigKey("invite-password-dir", .string),
        ConfigKey("invite-acl-file", .string),
        ConfigKey("invite-mosquitto-password-file", .string),
        ConfigKey("invite-nats-accounts", .string),
        ConfigKey("invite-reload-pid-file", .string),
        ConfigKey("invite-app-broker", .string),
        ConfigKey("invite-subscriber-user", .string),
        ConfigKey("invite-operator-user", .string),
        ConfigKey("invite-dynsec-username", .string),
        ConfigKey("invite-dynsec-password-file", .string),
    ]

    @Option(help: ArgumentHelp(
        "Let circle admins (the users file's admin:) invite phones from the dashboard, with the members' broker accounts in mosquitto's dynamic security plugin (--invite-dynsec-username, --invite-dynsec-password-file), mosquitto's ACL and password files (--invite-acl-file, --invite-mosquitto-password-file) or a NATS accounts file (--invite-nats-accounts), as the invite command does. Needs --http-port, --users and --invite-password-dir.",
        valueName: "dynsec|mosquitto|nats"))
    var inviteAccounts: InviteAccountKind?

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

    @Option(help: ArgumentHelp("With --invite-accounts dynsec: the dynamic security plugin's admin account. The dashboard connects as it (to --broker, with its TLS options, a clean session, client id <name>-invites) for each invite and disconnects after.", valueName: "name"))
    var inviteDynsecUsername: String?

    @Option(help: ArgumentHelp("With --invite-accounts dynsec: the file holding that admin account's password (first line).", valueName: "file"))
    var inviteDynsecPasswordFile: String?

    func validate() throws {
        guard let inviteAccounts else {
            let given = invitePasswordDir != nil || inviteAclFile != nil || inviteMosquittoPasswordFile != nil || inviteNatsAccounts != nil
                || !inviteReloadPidFile.isEmpty || inviteAppBroker != nil || !inviteSubscriberUser.isEmpty || !inviteOperatorUser.isEmpty
                || inviteDynsecUsername != nil || inviteDynsecPasswordFile != nil
            if given { throw ValidationError("The --invite-... options go with --invite-accounts dynsec, mosquitto or nats.") }
            return
        }
        guard let invitePasswordDir else { throw ValidationError("--invite-accounts needs --invite-password-dir: the folder of the broker accounts' passwords.") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: invitePasswordDir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--invite-password-dir \(invitePasswordDir) is not a folder; create it (mode 0700).")
        }
        switch inviteAccounts {
        case .dynsec:
            guard inviteDynsecUsername != nil, let inviteDynsecPasswordFile else {
                throw ValidationError("--invite-accounts dynsec needs --invite-dynsec-username and --invite-dynsec-password-file: the dynamic security plugin's admin account and its password.")
            }
            do { _ = try Password.resolve(file: inviteDynsecPasswordFile) } catch { throw ValidationError("--invite-dynsec-password-file: \(error.description)") }
            if !inviteReloadPidFile.isEmpty { throw ValidationError("--invite-reload-pid-file goes with --invite-accounts mosquitto or nats; dynsec changes the broker live.") }
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
    func desk(circlesPath: String, broker: BrokerOptions, prefixes: TopicPrefixOptions, logger: Logger) throws -> InviteDesk? {
        guard let inviteAccounts, let invitePasswordDir else { return nil }
        let address = try inviteAppBroker.map { try BrokerAddress(parsing: $0) } ?? broker.address()
        let roles = AccountStore.Roles(
            subscriberUsers: inviteSubscriberUser.isEmpty ? [broker.username ?? "whereabouts-sub"] : inviteSubscriberUser,
            operatorUsers: inviteOperatorUser)
        let plan = InviteAccounts(
            kind: inviteAccounts, passwordDirectory: invitePasswordDir, roles: roles, prefixes: prefixes,
            aclFile: inviteAclFile, mosquittoPasswordFile: inviteMosquittoPasswordFile, natsAccounts: inviteNatsAccounts,
            reloadPidFiles: inviteReloadPidFile,
            admin: inviteAccounts == .dynsec ? (try dynsecAdminConnection(broker: broker), inviteDynsecUsername ?? "") : nil)
        let source = try plan.source(logger: logger)
        return InviteDesk(inviter: Inviter(
            settings: .init(
                circlesPath: circlesPath, host: address.host, port: address.port, tls: address.usesTLS,
                prefixes: TopicPrefixes(topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix)),
            accounts: source))
    }

    /// The plugin admin's connection: the subscriber's broker and TLS settings with the admin's
    /// account, a clean session and a client id of its own (never the subscriber's).
    private func dynsecAdminConnection(broker: BrokerOptions) throws -> MQTTConfiguration {
        var admin = broker
        admin.username = inviteDynsecUsername
        admin.passwordFile = inviteDynsecPasswordFile
        admin.clientID = nil
        var configuration = try admin.mqttConfiguration(defaultClientID: "\(inviteDynsecUsername ?? "admin")-invites")
        configuration.cleanSession = true
        return configuration
    }
}
