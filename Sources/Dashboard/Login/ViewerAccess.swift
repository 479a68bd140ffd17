import Subscriber

/// What a ``Viewer`` may see right now: the circles it belongs to (under each circle's privacy
/// rule, as the views already are) and the history it may read (``RecorderScope``).
struct ViewerAccess: Sendable {
    /// The circle ids it may see; `nil`: every circle.
    let circles: Set<String>?
    /// The members whose history it may read.
    let history: RecorderScope

    /// Whether `circle` is one it may see. A circle it may not see is answered exactly like an
    /// unknown one.
    func canSee(circle: String) -> Bool {
        circles?.contains(circle) ?? true
    }

    /// The access of `viewer` given the circles' current `views`:
    /// - an account belongs to the circles its entry lists, or else to every circle with a
    ///   member whose user name is the account's, and to the circles it administers;
    /// - it reads its own history in full (every device of its user name), and in a circle it
    ///   administers the history of each member the circle shows exactly (history holds exact
    ///   positions, so a member shown coarse, by place or hidden keeps theirs private).
    static func of(_ viewer: Viewer, views: [CircleView]) -> ViewerAccess {
        switch viewer {
        case .open:
            return ViewerAccess(circles: nil, history: .everyone)
        case .nobody:
            return ViewerAccess(circles: [], history: RecorderScope { _ in false })
        case .account(let account):
            let existing = Set(views.map(\.circle.id))
            var belongs = account.circles.map(Set.init)
                ?? Set(views.filter { $0.members.contains { $0.user == account.name } }.map(\.circle.id))
            belongs.formUnion(account.admin)
            belongs.formIntersection(existing)
            var readable = Set<MemberID>()
            for view in views where belongs.contains(view.circle.id) && account.admin.contains(view.circle.id) {
                for member in view.members where member.privacy == .exact {
                    readable.insert(MemberID(user: member.user, device: member.device))
                }
            }
            let name = account.name, members = readable
            return ViewerAccess(circles: belongs, history: RecorderScope { $0.user == name || members.contains($0) })
        }
    }
}
