import Subscriber
import WhereaboutsCore
import WhereaboutsMQTT

/// Generates the accounts file of a NATS server or cluster (`users.conf`, included by
/// `broker/nats/local-node.conf`) that makes NATS enforce circle privacy for MQTT clients, with
/// the same rules as the mosquitto ACL (``AccessControlList``):
///
/// - each member user may publish only under `<topicPrefix>/<user>/#` and read only that, the view
///   and events of their circles, and the OwnTracks trees of those of their circles that have one;
/// - the subscriber's accounts read every member's topics and write the views and the receipts;
/// - each member user reads its own devices' receipts (`whereabouts/receipts/<user>/#`,
///   docs/receipts.md);
/// - operator accounts read everything.
///
/// What NATS needs besides (NATS 2.9 documentation, "MQTT" configuration): MQTT topics are NATS
/// subjects with `/` as `.`, `+` as `*` and a final `#` as both the parent subject and `>`;
/// permissions are per user; a QoS 1 subscription is delivered through `$MQTT.sub.<id>`, so every
/// account may subscribe to `$MQTT.sub.>`; accounts are limited to MQTT connections
/// (`allowed_connection_types`). NATS keeps the passwords in this file, so it is written with
/// mode 0600. A forbidden publish is acknowledged by NATS and then dropped; a forbidden
/// subscription gets nothing.
package struct NATSAccounts: Sendable {
    /// The circles to grant.
    package var circles: [Circle]
    /// The subscriber's accounts (one per shard instance).
    package var subscriberUsers: [String]
    /// Accounts that may read every topic.
    package var operatorUsers: [String]
    /// Root of the members' topics.
    package var topicPrefix: String
    /// Prefix of the circle views.
    package var viewPrefix: String

    /// Creates a generator.
    package init(
        circles: [Circle], subscriberUsers: [String] = ["whereabouts-sub"], operatorUsers: [String] = [],
        topicPrefix: String = "owntracks", viewPrefix: String = "whereabouts/circles"
    ) {
        self.circles = circles
        self.subscriberUsers = subscriberUsers
        self.operatorUsers = operatorUsers
        self.topicPrefix = topicPrefix
        self.viewPrefix = viewPrefix
    }

    /// The accounts file's text; passwords are read from (or generated into) `passwordDirectory`,
    /// one file per account named after it.
    ///
    /// - Throws: ``AccessControlError`` for a member named like the subscriber or an operator, a
    ///   user name NATS cannot carry, or a password file that cannot be read or written.
    package func render(passwordDirectory: String) throws(AccessControlError) -> String {
        try AccessControlError.checkNames(of: circles)
        var circlesOfUser: [String: [String]] = [:]
        let trees = Set(circles.filter(\.ownTracksTree).map(\.id))
        for circle in circles {
            for member in circle.members {
                for name in [member.user, member.device] {
                    if let problem = BrokerKind.nats.problem(withTopicLevel: name) {
                        throw AccessControlError("The member \(member.user)/\(member.device) of circle '\(circle.id)' cannot be carried by NATS: \(problem). Rename it in the circles file.")
                    }
                }
                if subscriberUsers.contains(member.user) { throw .memberCollides(user: member.user, with: member.user, role: "subscriber") }
                if operatorUsers.contains(member.user) { throw .memberCollides(user: member.user, with: member.user, role: "operator") }
                if !(circlesOfUser[member.user]?.contains(circle.id) ?? false) { circlesOfUser[member.user, default: []].append(circle.id) }
            }
        }
        let passwords = PasswordDirectory(path: passwordDirectory)
        var blocks: [String] = []
        let treeSubjects = trees.sorted().flatMap { subjects("\(OwnTracksTree.root(viewPrefix: viewPrefix, circle: $0))/#") }
        for user in subscriberUsers {
            blocks.append(try block(
                user, comment: "The subscriber: reads every member's topics, writes the circle views and events (and trees) and the receipts.",
                password: passwords.password(for: user).password,
                publish: subjects("\(viewPrefix)/#") + treeSubjects + subjects("\(ReceiptTopic.root)/#"), subscribe: subjects("\(topicPrefix)/#")))
        }
        for user in operatorUsers.sorted() {
            blocks.append(try block(
                user, comment: "Operator: reads everything, for debugging.", password: passwords.password(for: user).password,
                publish: [], subscribe: [">"]))
        }
        for (user, ids) in circlesOfUser.sorted(by: { $0.key < $1.key }) {
            // Its own topics, and the receipts for its devices (docs/receipts.md).
            var readable = subjects("\(topicPrefix)/\(user)/#") + subjects("\(ReceiptTopic.root)/\(user)/#")
            for id in ids.sorted() {
                readable += subjects("\(viewPrefix)/\(id)/view") + subjects("\(viewPrefix)/\(id)/events")
                if trees.contains(id) { readable += subjects("\(OwnTracksTree.root(viewPrefix: viewPrefix, circle: id))/#") }
            }
            blocks.append(try block(
                user, comment: "Member \(user): circles \(ids.sorted().joined(separator: ", ")).",
                password: passwords.password(for: user).password,
                publish: subjects("\(topicPrefix)/\(user)/#"), subscribe: readable))
        }
        return """
            # NATS accounts generated by `whereabouts-sub acl --format nats` from the circles file.
            # Do not edit by hand: regenerate after changing the circles file, then reload every node
            # (kill -HUP <nats-server pid>, or --reload-pid-file). Passwords are in this file: keep it
            # mode 0600. See docs/cluster.md.
            accounts {
              WHEREABOUTS {
                jetstream: enabled
                users: [

            """ + blocks.joined(separator: "\n") + """
                ]
              }
            }

            """
    }

    /// NATS subjects for an MQTT topic or filter: `/` → `.`, `+` → `*`, and a final `#` → the
    /// parent subject and `>` (MQTT's `#` also matches its parent level).
    static func subjects(_ filter: String) -> [String] {
        var levels = filter.split(separator: "/", omittingEmptySubsequences: false).map { level -> String in
            switch level {
            case "+": "*"
            default: String(level)
            }
        }
        guard levels.last == "#" else { return [levels.joined(separator: ".")] }
        levels.removeLast()
        return levels.isEmpty ? [">"] : [levels.joined(separator: "."), (levels + [">"]).joined(separator: ".")]
    }

    private func subjects(_ filter: String) -> [String] { Self.subjects(filter) }

    private func block(
        _ user: String, comment: String, password: String, publish: [String], subscribe: [String]
    ) throws(AccessControlError) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        func list(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ", ") + "]" }
        // A QoS 1 subscription is delivered through $MQTT.sub.<id> (NATS 2.9).
        let subscribeAllowed = subscribe + ["$MQTT.sub.>"]
        let publishRule = publish.isEmpty ? "deny: [\">\"]" : "allow: \(list(publish))"
        return """
                  # \(comment)
                  {
                    user: \(quoted(user)), password: \(quoted(password)), allowed_connection_types: ["MQTT"]
                    permissions: {
                      publish: { \(publishRule) }
                      subscribe: { allow: \(list(subscribeAllowed)) }
                    }
                  }

            """
    }
}
