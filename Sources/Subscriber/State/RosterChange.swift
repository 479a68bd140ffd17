/// The difference between two rosters: membership events, circles to republish or clear, and
/// devices to subscribe to or forget.
struct RosterChange: Sendable {
    /// `joined`/`left` events per circle.
    var events: [CircleEvent] = []
    /// Circles kept whose definition changed.
    var changedCircles: [String] = []
    /// Circles no longer owned: their retained view is cleared.
    var removedCircles: [String] = []
    /// Devices now tracked that were not before.
    var addedMembers: [MemberID] = []
    /// Devices no longer in any owned circle.
    var removedMembers: [MemberID] = []
}
