/// The identity of a tracked device: the user and device levels of its OwnTracks topic.
///
/// Identity comes from the topic a message arrived on, never from the payload.
package struct MemberID: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// User name.
    package var user: String
    /// Device name.
    package var device: String

    /// Creates an identity.
    package init(user: String, device: String) {
        self.user = user
        self.device = device
    }

    /// `user/device`.
    package var description: String { "\(user)/\(device)" }

    /// Orders by user, then device.
    package static func < (lhs: MemberID, rhs: MemberID) -> Bool {
        (lhs.user, lhs.device) < (rhs.user, rhs.device)
    }
}
