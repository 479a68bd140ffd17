import Foundation

/// What the dynamic security plugin holds, as `listClients` and `listRoles` (verbose) answer,
/// and the commands that turn it into a ``DynamicSecurityPlan``.
struct DynamicSecuritySnapshot: Sendable, Hashable {
    struct Client: Sendable, Hashable, Decodable {
        struct RoleName: Sendable, Hashable, Decodable { var rolename: String }
        var username: String
        var clientid: String?
        var textdescription: String?
        var roles: [RoleName]?
        var managed: Bool { textdescription == DynamicSecurityPlan.marker }
    }

    struct Role: Sendable, Hashable, Decodable {
        struct Rule: Sendable, Hashable, Decodable {
            var acltype: String
            var topic: String
            var allow: Bool
        }
        var rolename: String
        var textdescription: String?
        var acls: [Rule]?
        var managed: Bool { textdescription == DynamicSecurityPlan.marker }
        var rules: Set<DynamicSecurityPlan.ACL> {
            Set((acls ?? []).map { DynamicSecurityPlan.ACL(type: $0.acltype, topic: $0.topic, allow: $0.allow) })
        }
    }

    var clients: [Client]
    var roles: [Role]

    /// The commands that make the plugin hold `plan`, and warnings about accounts that can still
    /// take over client ids. Objects not marked as generated are never changed or deleted; one
    /// that has the name of a planned object is an error.
    ///
    /// - Parameter password: The password for an account about to be created.
    func commands(
        toReach plan: DynamicSecurityPlan, password: (DynamicSecurityPlan.Account) throws -> String
    ) throws -> (commands: [DynamicSecurityCommand], warnings: [String]) {
        var commands: [DynamicSecurityCommand] = [.setDefaultACLAccess()]
        var warnings: [String] = []
        let rolesByName = Dictionary(roles.map { ($0.rolename, $0) }, uniquingKeysWith: { first, _ in first })
        let clientsByName = Dictionary(clients.map { ($0.username, $0) }, uniquingKeysWith: { first, _ in first })

        for (name, rules) in plan.roles.sorted(by: { $0.key < $1.key }) {
            guard let existing = rolesByName[name] else {
                commands.append(.createRole(name, rules: rules))
                continue
            }
            guard existing.managed else {
                throw AccessControlError("The broker already has a role '\(name)' that whereabouts-sub did not create; rename or delete it (mosquitto_ctrl dynsec deleteRole \(name)).")
            }
            let current = existing.rules
            for rule in current.subtracting(rules).sorted() { commands.append(.roleACL("removeRoleACL", role: name, rule)) }
            for rule in rules.subtracting(current).sorted() { commands.append(.roleACL("addRoleACL", role: name, rule)) }
        }
        for (name, account) in plan.accounts.sorted(by: { $0.key < $1.key }) {
            guard let existing = clientsByName[name] else {
                commands.append(.createClient(account, password: try password(account)))
                continue
            }
            guard existing.managed else {
                throw AccessControlError("The broker already has an account '\(name)' that whereabouts-sub did not create, for \(account.purpose); delete it (mosquitto_ctrl dynsec deleteClient \(name)) or rename the member.")
            }
            if existing.clientid != account.clientID {
                commands.append(.setClientID(username: name, clientID: account.clientID))
            }
            let current = Set((existing.roles ?? []).map(\.rolename))
            for role in current.subtracting(account.roles).sorted() { commands.append(.clientRole("removeClientRole", username: name, role: role)) }
            for role in Set(account.roles).subtracting(current).sorted() { commands.append(.clientRole("addClientRole", username: name, role: role)) }
        }
        for client in clients.sorted(by: { $0.username < $1.username }) {
            if client.managed, plan.accounts[client.username] == nil {
                commands.append(.deleteClient(client.username))
            } else if !client.managed, client.clientid?.isEmpty ?? true {
                warnings.append(
                    "The account '\(client.username)' has no client id bound, so it can log in under any client id and take over another client's session (the subscriber's included). Bind one: mosquitto_ctrl dynsec setClientId \(client.username) \(client.username)")
            }
        }
        for role in roles.sorted(by: { $0.rolename < $1.rolename }) where role.managed && plan.roles[role.rolename] == nil {
            commands.append(.deleteRole(role.rolename))
        }
        return (commands, warnings)
    }
}
