import WhereaboutsCore

/// One stored location of a member, as the history returns it.
package struct HistoryLocation: Sendable, Hashable {
    /// Whose location it is.
    package var member: MemberID
    /// The location as the device sent it (the fields the decoder kept).
    package var fix: LocationMessage
    /// When the subscriber received it, in epoch seconds.
    package var receivedAt: Double

    /// Creates a stored location.
    package init(member: MemberID, fix: LocationMessage, receivedAt: Double) {
        self.member = member
        self.fix = fix
        self.receivedAt = receivedAt
    }
}
