/// OwnTracks' card `{"_type":"card","name":"…","face":"<base64 image>","tid":"…"}`, published
/// retained on `<base>/info`: how a device is shown by name and picture in the OwnTracks apps, the
/// Recorder and Frontend, and the Whereabouts subscriber.
///
/// Sources of the shape: the OwnTracks booklet ("card": `name`, `face` a base64 PNG or JPEG, `tid`);
/// the Recorder files cards from `/info` (`do_info`); Home Assistant accepts `card` without a
/// warning (`homeassistant/components/owntracks/messages.py`).
public struct CardMessage: Sendable, Hashable, Codable {
    /// Always `"card"`.
    public var type: String = "card"
    /// The name to show.
    public var name: String
    /// The picture, a base64-encoded PNG or JPEG, or `nil` for none.
    public var face: String?
    /// The tracker id the card belongs to.
    public var tid: String?

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case name, face, tid
    }

    /// Creates a card.
    public init(name: String, face: String? = nil, tid: String? = nil) {
        self.name = name
        self.face = face
        self.tid = tid
    }
}
