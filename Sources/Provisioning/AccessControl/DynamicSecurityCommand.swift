/// One command of the dynamic security plugin's control API (`$CONTROL/dynamic-security/v1`),
/// encoded as the plugin expects; absent fields are left out.
struct DynamicSecurityCommand: Encodable, Sendable, Hashable, CustomStringConvertible {
    /// A role reference inside `createClient`.
    struct RoleName: Encodable, Sendable, Hashable {
        /// The role.
        var rolename: String
    }

    /// A rule inside `createRole`.
    struct Rule: Encodable, Sendable, Hashable {
        /// The ACL type.
        var acltype: String
        /// The topic filter.
        var topic: String
        /// Allow or deny.
        var allow: Bool
    }

    /// The command name, such as `createClient`.
    var command: String
    var username: String?
    var clientid: String?
    var password: String?
    var rolename: String?
    var textdescription: String?
    var roles: [RoleName]?
    var acls: [Rule]?
    var acltype: String?
    var topic: String?
    var allow: Bool?
    var verbose: Bool?

    init(_ command: String) {
        self.command = command
    }

    /// The command as JSON, with any password replaced by `***` (for logs and `--dry-run`).
    var description: String {
        var shown = self
        if shown.password != nil { shown.password = "***" }
        return DynamicSecurityControl.json(shown)
    }

    static func setDefaultACLAccess() -> Self {
        var command = Self("setDefaultACLAccess")
        command.acls = [
            Rule(acltype: "publishClientSend", topic: "", allow: false),
            Rule(acltype: "publishClientReceive", topic: "", allow: false),
            Rule(acltype: "subscribe", topic: "", allow: false),
            Rule(acltype: "unsubscribe", topic: "", allow: true),
        ]
        return command
    }

    static func createRole(_ name: String, rules: Set<DynamicSecurityPlan.ACL>) -> Self {
        var command = Self("createRole")
        command.rolename = name
        command.textdescription = DynamicSecurityPlan.marker
        command.acls = rules.sorted().map { Rule(acltype: $0.type, topic: $0.topic, allow: $0.allow) }
        return command
    }

    static func roleACL(_ verb: String, role: String, _ rule: DynamicSecurityPlan.ACL) -> Self {
        var command = Self(verb)
        command.rolename = role
        command.acltype = rule.type
        command.topic = rule.topic
        if verb == "addRoleACL" { command.allow = rule.allow }
        return command
    }

    static func createClient(_ account: DynamicSecurityPlan.Account, password: String) -> Self {
        var command = Self("createClient")
        command.username = account.username
        command.clientid = account.clientID
        command.password = password
        command.textdescription = DynamicSecurityPlan.marker
        command.roles = account.roles.sorted().map { RoleName(rolename: $0) }
        return command
    }

    static func clientRole(_ verb: String, username: String, role: String) -> Self {
        var command = Self(verb)
        command.username = username
        command.rolename = role
        return command
    }

    static func setClientID(username: String, clientID: String) -> Self {
        var command = Self("setClientId")
        command.username = username
        command.clientid = clientID
        return command
    }

    static func deleteClient(_ username: String) -> Self {
        var command = Self("deleteClient")
        command.username = username
        return command
    }

    static func deleteRole(_ name: String) -> Self {
        var command = Self("deleteRole")
        command.rolename = name
        return command
    }

    static func list(_ what: String) -> Self {
        var command = Self(what)
        command.verbose = true
        return command
    }
}
