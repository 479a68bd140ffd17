import Subscriber

/// Which members a Recorder API caller may see: the seam where login will scope each account to
/// its circles. Today the API is open (as the dashboard is): ``everyone``.
struct RecorderScope: Sendable {
    private let allows: @Sendable (MemberID) -> Bool

    /// Every member in the history.
    static let everyone = RecorderScope { _ in true }

    /// A scope that lets through the members `allows` accepts.
    init(allows: @escaping @Sendable (MemberID) -> Bool) {
        self.allows = allows
    }

    /// Whether the caller may see `member`. A member it may not see is answered exactly like an
    /// unknown one, so nothing leaks about it.
    func contains(_ member: MemberID) -> Bool {
        allows(member)
    }
}
