/// Which (member, key) pairs were already logged, for messages logged once per member
/// (ignored types, dropped fields).
struct OnceLog: Sendable {
    private var seen: Set<String> = []

    /// Whether `key` is new for `member`, recording it.
    mutating func isFirst(_ key: String, of member: MemberID) -> Bool {
        seen.insert("\(member.user)/\(member.device)\u{0}\(key)").inserted
    }
}
