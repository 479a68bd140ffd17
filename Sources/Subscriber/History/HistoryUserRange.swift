/// Which users a read of each member's last location covers
/// (``HistoryStore/scanLastLocations(user:device:users:_:)``).
package enum HistoryUserRange: Sendable, Hashable {
    /// Every user.
    case all
    /// The users ordered before the pivot.
    case before(String)
    /// The pivot and the users ordered after it.
    case from(String)
}
