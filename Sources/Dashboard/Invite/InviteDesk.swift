import Foundation
import Provisioning

/// The dashboard's invites: the ``Inviter`` of `whereabouts-sub invite` (the same code makes the
/// broker account, the secret and the app's configuration), one invite or revoke at a time, since
/// each rewrites the circles file and the accounts.
///
/// With `--invite-accounts mosquitto` an invite runs `mosquitto_passwd` and waits for it (tens of
/// milliseconds) on the thread that runs this actor, as the command does; invites are rare, and
/// the other routes keep the other threads.
///
/// Compared by identity, so that ``DashboardConfiguration`` stays `Hashable`.
package actor InviteDesk: Hashable {
    private let inviter: Inviter

    /// A desk that makes invites with `inviter`.
    package init(inviter: Inviter) {
        self.inviter = inviter
    }

    /// ``Inviter/circles(listing:device:)``.
    func circles(listing user: String, device: String) throws(ProvisioningError) -> [String] {
        try inviter.circles(listing: user, device: device)
    }

    /// ``Inviter/invite(user:device:joining:trackerID:)`` into `circle`.
    func invite(user: String, device: String, circle: String, trackerID: String?) async throws -> Invitation {
        try await inviter.invite(user: user, device: device, joining: [circle], trackerID: trackerID)
    }

    /// ``Inviter/revoke(user:device:)``.
    func revoke(user: String, device: String) async throws -> [String] {
        try await inviter.revoke(user: user, device: device)
    }

    package static func == (lhs: InviteDesk, rhs: InviteDesk) -> Bool { lhs === rhs }

    package nonisolated func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
