import WhereaboutsCore

/// Maps members to their MQTT topics and back.
///
/// A member `user`/`device` publishes on `<prefix>/<user>/<device>` (location, last will) and on
/// sub-topics `<prefix>/<user>/<device>/<kind>` (`presence`, `event`, `info`, `cmd`...). The
/// subscriber subscribes to exactly these two filters per member, and identifies a message's
/// member from its topic alone.
package struct TopicRouter: Sendable, Hashable {
    /// The first topic level, `owntracks` unless the publishers use another `--topic-base` root.
    package var prefix: String

    /// Creates a router for topics under `prefix`.
    package init(prefix: String = "owntracks") {
        self.prefix = prefix
    }

    /// What a topic says about a message.
    package struct Route: Sendable, Hashable {
        /// The member the topic belongs to.
        package var member: MemberID
        /// The sub-topic level (`presence`, `event`, `info`, `cmd`...), or `nil` for the base topic.
        var subtopic: String?
    }

    /// The member's base topic, `<prefix>/<user>/<device>`.
    func baseTopic(for member: MemberID) -> String {
        OwnTracksName.topic(prefix: prefix, user: member.user, device: member.device)
    }

    /// The two subscription filters for a member: its base topic and its direct sub-topics.
    package func filters(for member: MemberID) -> [String] {
        let base = baseTopic(for: member)
        return [base, base + "/+"]
    }

    /// The two filters that cover every device under the prefix (``SubscriberConfiguration/Subscription/wildcard``).
    package var wildcardFilters: [String] { ["\(prefix)/+/+", "\(prefix)/+/+/+"] }

    /// The member and sub-topic of `topic`, or `nil` when it is not of the form
    /// `<prefix>/<user>/<device>[/<kind>]`.
    package func route(_ topic: String) -> Route? {
        var topic = topic
        return topic.withUTF8 { bytes -> Route? in
            let prefixLength = prefix.utf8.count
            guard bytes.count > prefixLength + 1, bytes[prefixLength] == UInt8(ascii: "/"),
                  prefix.utf8.elementsEqual(UnsafeBufferPointer(rebasing: bytes[..<prefixLength]))
            else { return nil }
            // Two or three levels after the prefix (user, device, sub-topic); no allocation.
            let slash = UInt8(ascii: "/")
            var levels: (Range<Int>, Range<Int>, Range<Int>) = (0..<0, 0..<0, 0..<0)
            var count = 0
            var start = prefixLength + 1
            for index in start...bytes.count where index == bytes.count || bytes[index] == slash {
                switch count {
                case 0: levels.0 = start..<index
                case 1: levels.1 = start..<index
                case 2: levels.2 = start..<index
                default: return nil
                }
                count += 1
                start = index + 1
            }
            guard count == 2 || count == 3, !levels.0.isEmpty, !levels.1.isEmpty else { return nil }
            func level(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            return Route(
                member: MemberID(user: level(levels.0), device: level(levels.1)),
                subtopic: count == 3 ? level(levels.2) : nil
            )
        }
    }
}
