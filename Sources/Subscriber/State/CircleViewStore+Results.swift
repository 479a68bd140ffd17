extension CircleViewStore {
    /// What ``CircleViewStore/apply(_:from:retained:at:)`` did with a message.
    package enum ApplyOutcome: Sendable, Hashable {
        /// Accepted; at least one view changed.
        case changed
        /// Accepted; nothing shown changed (older fix outside the trail window, card, ignored type).
        case unchanged
        /// Dropped: the member already has a fix with this `tst`.
        case duplicate
        /// Rejected: the device is not a member of any circle this instance owns.
        case notAMember
    }

    /// The subscription changes a circles-file reload requires.
    package struct MembershipChange: Sendable, Hashable {
        /// Devices now tracked that were not before: subscribe to their topics.
        package var added: [MemberID] = []
        /// Devices no longer in any owned circle: unsubscribe from their topics.
        package var removed: [MemberID] = []
    }
}
