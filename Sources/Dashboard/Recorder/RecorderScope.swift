import Subscriber

/// Which members a Recorder API caller may see: ``everyone`` in the open development mode, else
/// what the account may read (``ViewerAccess/history``).
struct RecorderScope: Sendable {
    private let allows: @Sendable (MemberID) -> Bool

    /// Every member in the history.
    static let everyone = RecorderScope { _ in true }

    /// A scope that lets through the members `allows` accepts.
    init(allows: @escaping @Sendable (MemberID) -> Bool) {
        self.allows = allows
    }

    /// What `viewer` may see of the history: everyone in the open mode (without asking `source`
    /// for the circles), else the members of the circles it may read (``ViewerAccess/history``).
    static func of(_ viewer: Viewer, in source: CircleViewStore) async -> RecorderScope {
        if case .open = viewer { return .everyone }
        return ViewerAccess.of(viewer, views: await source.views()).history
    }

    /// Whether the caller may see `member`. A member it may not see is answered exactly like an
    /// unknown one, so nothing leaks about it.
    func contains(_ member: MemberID) -> Bool {
        allows(member)
    }
}
