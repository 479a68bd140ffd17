/// The identity of a tracked device: the user and device levels of its OwnTracks topic.
///
/// Identity comes from the topic a message arrived on, never from the payload.
public struct MemberID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// User name.
    public var user: String
    /// Device name.
    public var device: String

    /// Creates an identity.
    public init(user: String, device: String) {
        self.user = user
        self.device = device
    }

    /// `user/device`.
    public var description: String { "\(user)/\(device)" }

    /// Orders by user, then device.
    public static func < (lhs: MemberID, rhs: MemberID) -> Bool {
        (lhs.user, lhs.device) < (rhs.user, rhs.device)
    }
}
