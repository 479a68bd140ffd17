/// What the `Provisioning` module (`whereabouts-sub invite`) takes from the account generators
/// and the OwnTracks tree, so that an invite follows them instead of repeating their rules: the
/// account names of a device, the password files, and the topic of a circle's tree.
package enum ProvisioningSeam {
    /// The dynamic security account of `member`'s device (user name and only client id), and of
    /// its presence connection, as ``DynamicSecurityPlan`` names them.
    package static func dynamicSecurityAccounts(of member: Member) throws(AccessControlError) -> (device: String, presence: [String]) {
        let circle = Circle(id: "invite", name: "invite", members: [member])
        let plan = try DynamicSecurityPlan(circles: [circle], subscriberUsers: [])
        // The device's own account is the one whose password file is named after it; the others
        // (the presence connection) share that file.
        guard let device = plan.accounts.values.first(where: { $0.username == $0.passwordName }) else {
            throw AccessControlError("The dynamic security plan has no account for \(member.user)/\(member.device).")
        }
        let presence = plan.accounts.values.filter { $0.passwordName == device.username && $0.username != device.username }.map(\.username)
        return (device.username, presence.sorted())
    }

    /// The password of account `name` in the password folder `directory` (``PasswordDirectory``):
    /// read, or generated and written there (mode 0600); `generated` says which.
    package static func password(for name: String, in directory: String) throws(AccessControlError) -> (password: String, generated: Bool) {
        try PasswordDirectory(path: directory).password(for: name)
    }

    /// The filter an OwnTracks app subscribes to for circle `circle`'s tree (``OwnTracksTree``),
    /// or `nil` when the circle publishes no tree (`owntracks: true` is not set).
    package static func treeFilter(of circle: Circle, viewPrefix: String) -> String? {
        circle.ownTracksTree ? OwnTracksTree.root(viewPrefix: viewPrefix, circle: circle.id) + "/#" : nil
    }

    /// The tracker id the tree shows for `user` when the member sets none.
    package static func defaultTrackerID(_ user: String) -> String { OwnTracksFriend.defaultTrackerID(user) }
}
