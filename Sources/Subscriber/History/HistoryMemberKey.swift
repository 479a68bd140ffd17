/// A member's row in the history (``HistoryStore/key(of:)``): looked up once, then used for
/// every chunk of a long read instead of joining the member table again.
package struct HistoryMemberKey: Sendable, Hashable {
    /// The row id of the member in the history file.
    let id: Int64
}
