/// A circle from the circles file: a named group of members who see each other's positions.
public struct Circle: Sendable, Hashable, Codable {
    /// Stable id: lower-case letters, digits, `-` and `_`; used in topics and URLs.
    public var id: String
    /// Display name.
    public var name: String
    /// The members, in file order; each (user, device) appears at most once per circle.
    public var members: [Member]

    /// Creates a circle.
    public init(id: String, name: String, members: [Member]) {
        self.id = id
        self.name = name
        self.members = members
    }

    /// The circle's id and name.
    public var summary: CircleSummary { CircleSummary(id: id, name: name) }
}

/// A member of a circle: one device of one user, with how dashboards label it.
///
/// The same device may be a member of several circles, with the same or a different label.
public struct Member: Sendable, Hashable, Codable {
    /// User name: the second level of `owntracks/<user>/<device>`.
    public var user: String
    /// Device name: the third level of `owntracks/<user>/<device>`.
    public var device: String
    /// Display name (defaults to the user name).
    public var name: String
    /// Colour as `#rrggbb`, if configured.
    public var color: String?
    /// The file holding the OwnTracks secret this device encrypts with (`secretFile`), as written
    /// in the circles file; never the secret itself.
    public var secretFile: String?

    /// Creates a member.
    public init(user: String, device: String, name: String? = nil, color: String? = nil, secretFile: String? = nil) {
        self.user = user
        self.device = device
        self.name = name ?? user
        self.color = color
        self.secretFile = secretFile
    }

    /// The device's identity, independent of its label.
    public var id: MemberID { MemberID(user: user, device: device) }
}

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
