import WhereaboutsCore

/// A validated message from a member's topics, ready for the view store.
///
/// The member it concerns comes from the topic (``TopicRouter``), never from the payload.
package enum InboundMessage: Sendable, Hashable {
    /// An OwnTracks `location`: a fix, with the regions the device reports being in
    /// (`inregions`; `nil` when the message does not say).
    case location(LocationMessage, inregions: [String]? = nil)
    /// An OwnTracks last will: the device's connection went away. `tst` is its connect time.
    case lastWill(tst: Int)
    /// The publisher's presence: `online` on connect, `offline` on shutdown or as a second will.
    /// `due`: by when the publisher promises its next message (epoch s), if it promises.
    case presence(online: Bool, since: Int?, tst: Int, due: Int? = nil)
    /// An OwnTracks `transition`: the device entered (`enter`) or left (`leave`) one of its own
    /// regions, named by `region` (the app's `desc`), at `tst`.
    case transition(event: String, region: String?, tst: Int)
    /// An OwnTracks `card`: the member's display name and face image.
    case card(name: String?, face: MemberFace?)
    /// A well-formed message that views do not use (`waypoints`, `beacon`, `encrypted`...).
    case ignored(type: String)
}

extension InboundMessage {
    /// The OwnTracks `_type` this message came as.
    var typeName: String {
        switch self {
        case .location: "location"
        case .lastWill: "lwt"
        case .presence: "presence"
        case .transition: "transition"
        case .card: "card"
        case .ignored(let type): type
        }
    }
}
