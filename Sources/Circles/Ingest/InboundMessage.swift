import WhereaboutsCore

/// A validated message from a member's topics, ready for the view store.
///
/// The member it concerns comes from the topic (``TopicRouter``), never from the payload.
public enum InboundMessage: Sendable, Hashable {
    /// An OwnTracks `location`: a fix. `createdAt > tst` marks a backlog message (history).
    case location(LocationMessage)
    /// An OwnTracks last will: the device's connection went away. `tst` is its connect time.
    case lastWill(tst: Int)
    /// The publisher's presence: `online` on connect, `offline` on shutdown or as a second will.
    case presence(online: Bool, since: Int?, tst: Int)
    /// An OwnTracks `transition` (region enter/leave): counts as news from the member.
    case transition(event: String, tst: Int)
    /// An OwnTracks `card` (display name, face): accepted, not shown in views.
    case card(name: String?)
    /// A well-formed message that views do not use (`cmd`, `status`, `waypoints`...).
    case ignored(type: String)
}
