/// The retained presence message on `<base>/presence`: whether a publisher is running.
///
/// `{"_type":"presence","state":"online","since":<start epoch s>,"tst":<epoch s>}` is published on
/// connect; `"state":"offline"` on a clean shutdown and as the will of the publisher's second,
/// presence-only connection, so a late subscriber always reads the current state.
public struct PresenceMessage: Sendable, Hashable, Codable {
    /// Whether the publisher is running.
    public enum State: String, Sendable, Hashable, Codable {
        /// Connected and publishing.
        case online
        /// Stopped cleanly, or its connection died.
        case offline
    }

    /// Always `"presence"`.
    public var type: String = "presence"
    /// Online or offline.
    public var state: State
    /// Epoch seconds when the publisher started.
    public var since: Int
    /// Epoch seconds when the message was built.
    public var tst: Int

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case state, since, tst
    }

    /// Creates a presence message.
    public init(state: State, since: Int, tst: Int) {
        self.state = state
        self.since = since
        self.tst = tst
    }
}

/// OwnTracks' last-will message `{"_type":"lwt","tst":<connect time>}`, sent by the broker on the
/// base topic when the publisher's main connection dies. Never retained: a retained will would
/// replace the retained last position.
public struct LastWillMessage: Sendable, Hashable, Codable {
    /// Always `"lwt"`.
    public var type: String = "lwt"
    /// Epoch seconds when the connection that carries this will was made.
    public var tst: Int

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case tst
    }

    /// Creates a will for a connection made at `tst`.
    public init(tst: Int) {
        self.tst = tst
    }
}
