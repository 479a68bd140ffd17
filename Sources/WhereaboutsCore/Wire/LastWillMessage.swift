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
