import ArgumentParser
import Logging
import Provisioning
import WhereaboutsMQTT

/// Where the members' broker accounts live, as `invite --accounts` and `run --invite-accounts`
/// both name it.
enum InviteAccountKind: String, ExpressibleByArgument, CaseIterable {
    case dynsec, mosquitto, nats
}

/// What `invite` and the dashboard's invites (`run --invite-...`) say about the members' accounts,
/// resolved into the one ``AccountSource`` the ``Inviter`` uses: one place for both spellings.
struct InviteAccounts {
    var kind: InviteAccountKind
    /// The folder of the accounts' passwords.
    var passwordDirectory: String
    /// The subscriber's and operators' accounts.
    var roles: AccountStore.Roles
    /// The topic roots the generated access control uses.
    var prefixes: TopicPrefixOptions
    /// With `mosquitto`: the ACL and password files; with `nats`: the accounts file.
    var aclFile: String?, mosquittoPasswordFile: String?, natsAccounts: String?
    /// With `mosquitto` or `nats`: the process ids to send SIGHUP (one broker, or each node).
    var reloadPidFiles: [String] = []
    /// With `dynsec`: the plugin admin's connection and account name (never made or touched).
    var admin: (connection: MQTTConfiguration, name: String)?

    /// The source: files the broker reads, or the plugin through its admin (which `dynsec` needs).
    func source(logger: Logger) throws -> AccountSource {
        switch kind {
        case .dynsec:
            guard let admin else { throw ValidationError("The dynamic security plugin's accounts need its admin account and password.") }
            return .dynamicSecurity(.init(
                connection: admin.connection,
                settings: .init(
                    subscriberUsers: roles.subscriberUsers, operatorUsers: roles.operatorUsers, reservedUsers: [admin.name],
                    topicPrefix: prefixes.topicPrefix, viewPrefix: prefixes.viewPrefix, passwordDirectory: passwordDirectory),
                logger: logger))
        case .mosquitto:
            return .store(.mosquitto(.init(
                aclPath: aclFile ?? "", passwordFile: mosquittoPasswordFile ?? "", passwordDirectory: passwordDirectory, roles: roles,
                reloadPidFile: reloadPidFiles.first)))
        case .nats:
            return .store(.nats(.init(path: natsAccounts ?? "", passwordDirectory: passwordDirectory, roles: roles, reloadPidFiles: reloadPidFiles)))
        }
    }
}
