/// The retained presence message on `<base>/presence`: whether a publisher is running.
///
/// `{"_type":"lwt","state":"online","since":<start epoch s>,"tst":<epoch s>,"due":<epoch s>}` is
/// published on connect and as the heartbeat while nothing else is due; `"state":"offline"` on a clean shutdown and as the will of the publisher's second,
/// presence-only connection, so a late subscriber always reads the current state.
///
/// Why `_type` is `lwt`: Home Assistant's OwnTracks integration subscribes to `owntracks/#` and logs
/// `Received unsupported message type` at warning level for every `_type` outside the ones it
/// registers (`homeassistant/components/owntracks/messages.py`: location, transition, waypoint(s),
/// encrypted handled; lwt, configuration, beacon, cmd, steps, card accepted at debug level). Of
/// these, OwnTracks' `lwt` is the one about a device's connection, which is what presence says; the
/// `state` field tells online from offline, and distinguishes it from an app's plain last will
/// `{"_type":"lwt","tst":…}`. Receivers read the older `"_type":"presence"` shape too.
public struct PresenceMessage: Sendable, Hashable, Codable {
    /// Whether the publisher is running.
    public enum State: String, Sendable, Hashable, Codable {
        /// Connected and publishing.
        case online
        /// Stopped cleanly, or its connection died.
        case offline
    }

    /// The `_type` written: `"lwt"`, which Home Assistant accepts without a warning.
    static let wireType = "lwt"
    /// The `_type` of presence messages before issue 10, still read.
    static let legacyWireType = "presence"

    /// `"lwt"` when built here; `"presence"` when decoded from an older publisher.
    public var type: String = PresenceMessage.wireType
    /// Online or offline.
    public var state: State
    /// Epoch seconds when the publisher started.
    public var since: Int
    /// Epoch seconds when the message was built.
    public var tst: Int
    /// Epoch seconds by which the next message (a location or the next heartbeat) will have come
    /// at the latest; only with `online`.
    public var due: Int?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case state, since, tst, due
    }

    /// Creates a presence message.
    public init(state: State, since: Int, tst: Int, due: Int? = nil) {
        self.due = due
        self.state = state
        self.since = since
        self.tst = tst
    }

    /// Decodes either shape, `"_type":"lwt"` with a `state` or the older `"_type":"presence"`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        guard type == Self.wireType || type == Self.legacyWireType else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "A presence message has _type \"lwt\" or \"presence\", not \"\(type)\".")
        }
        state = try container.decode(State.self, forKey: .state)
        since = try container.decode(Int.self, forKey: .since)
        tst = try container.decode(Int.self, forKey: .tst)
        due = try container.decodeIfPresent(Int.self, forKey: .due)
    }
}
