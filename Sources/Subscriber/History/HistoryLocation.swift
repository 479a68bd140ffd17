import WhereaboutsCore

/// One stored location of a member, as the history returns it.
public struct HistoryLocation: Sendable, Hashable {
    /// Whose location it is.
    public var member: MemberID
    /// The location as the device sent it (the fields the decoder kept).
    public var fix: LocationMessage
    /// When the subscriber received it, in epoch seconds.
    public var receivedAt: Double

    /// Creates a stored location.
    public init(member: MemberID, fix: LocationMessage, receivedAt: Double) {
        self.member = member
        self.fix = fix
        self.receivedAt = receivedAt
    }
}
