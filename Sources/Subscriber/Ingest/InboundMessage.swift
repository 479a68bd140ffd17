import WhereaboutsCore

/// A validated message from a member's topics, ready for the view store.
///
/// The member it concerns comes from the topic (``TopicRouter``), never from the payload.
public enum InboundMessage: Sendable, Hashable {
    /// An OwnTracks `location`: a fix, with the regions the device reports being in
    /// (`inregions`; `nil` when the message does not say).
    case location(LocationMessage, inregions: [String]? = nil)
    /// An OwnTracks last will: the device's connection went away. `tst` is its connect time.
    case lastWill(tst: Int)
    /// The publisher's presence: `online` on connect, `offline` on shutdown or as a second will.
    case presence(online: Bool, since: Int?, tst: Int)
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

/// A member's face image from an OwnTracks `card`, kept once per member and served over HTTP.
public struct MemberFace: Sendable, Hashable {
    /// The image bytes (decoded from the card's base64 `face`).
    public var data: [UInt8]
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`, from the image's first bytes.
    public var contentType: String
    /// A short hash of the bytes (16 hex digits of FNV-1a 64): the image's HTTP `ETag` and the
    /// `face` value in views, so a dashboard's cached copy stays valid until the face changes.
    public var tag: String

    /// Wraps `data`, or returns `nil` when it is not a PNG, JPEG, GIF or WebP image.
    public init?(data: [UInt8]) {
        guard let type = Self.contentType(of: data) else { return nil }
        self.data = data
        self.contentType = type
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        self.tag = String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func contentType(of data: [UInt8]) -> String? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if data.count >= 12, data.starts(with: Array("RIFF".utf8)), Array(data[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return nil
    }
}
