/// Maps members to their MQTT topics and back.
///
/// A member `user`/`device` publishes on `<prefix>/<user>/<device>` (location, last will) and on
/// sub-topics `<prefix>/<user>/<device>/<kind>` (`presence`, `event`, `info`, `cmd`...). The
/// subscriber subscribes to exactly these two filters per member, and identifies a message's
/// member from its topic alone.
public struct TopicRouter: Sendable, Hashable {
    /// The first topic level, `owntracks` unless the publishers use another `--topic-base` root.
    public var prefix: String

    /// Creates a router for topics under `prefix`.
    public init(prefix: String = "owntracks") {
        self.prefix = prefix
    }

    /// What a topic says about a message.
    public struct Route: Sendable, Hashable {
        /// The member the topic belongs to.
        public var member: MemberID
        /// The sub-topic level (`presence`, `event`, `info`, `cmd`...), or `nil` for the base topic.
        public var subtopic: String?
    }

    /// The member's base topic, `<prefix>/<user>/<device>`.
    public func baseTopic(for member: MemberID) -> String {
        "\(prefix)/\(member.user)/\(member.device)"
    }

    /// The two subscription filters for a member: its base topic and its direct sub-topics.
    public func filters(for member: MemberID) -> [String] {
        let base = baseTopic(for: member)
        return [base, base + "/+"]
    }

    /// The member and sub-topic of `topic`, or `nil` when it is not of the form
    /// `<prefix>/<user>/<device>[/<kind>]`.
    public func route(_ topic: String) -> Route? {
        guard topic.utf8.count > prefix.utf8.count, topic.hasPrefix(prefix),
              topic.utf8[topic.utf8.index(topic.utf8.startIndex, offsetBy: prefix.utf8.count)] == UInt8(ascii: "/")
        else { return nil }
        let levels = topic.utf8.dropFirst(prefix.utf8.count + 1)
            .split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard levels.count == 2 || levels.count == 3, !levels[0].isEmpty, !levels[1].isEmpty else { return nil }
        return Route(
            member: MemberID(user: String(decoding: levels[0], as: UTF8.self), device: String(decoding: levels[1], as: UTF8.self)),
            subtopic: levels.count == 3 ? String(decoding: levels[2], as: UTF8.self) : nil
        )
    }
}
