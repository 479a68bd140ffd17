/// A member of a circle: one device of one user, with how dashboards label it.
///
/// The same device may be a member of several circles, with the same or a different label.
package struct Member: Sendable, Hashable, Codable {
    /// User name: the second level of `owntracks/<user>/<device>`.
    package var user: String
    /// Device name: the third level of `owntracks/<user>/<device>`.
    package var device: String
    /// Display name (defaults to the user name).
    package var name: String
    /// Colour as `#rrggbb`, if configured.
    package var color: String?
    /// The file holding the OwnTracks secret this device encrypts with (`secretFile`), as written
    /// in the circles file; never the secret itself.
    package var secretFile: String?
    /// What this member shares with this circle when less than the circle's `privacy`
    /// (`share:`); `nil` shares what the circle's level allows.
    package var share: PrivacyLevel?

    /// Creates a member.
    package init(
        user: String, device: String, name: String? = nil, color: String? = nil, secretFile: String? = nil,
        share: PrivacyLevel? = nil
    ) {
        self.share = share
        self.user = user
        self.device = device
        self.name = name ?? user
        self.color = color
        self.secretFile = secretFile
    }

    /// The device's identity, independent of its label.
    package var id: MemberID { MemberID(user: user, device: device) }
}
