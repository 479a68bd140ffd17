import Foundation

/// Every key Whereabouts reads from OwnTracks and presence JSON, all optional, filled in one pass
/// over the payload. Unknown keys are ignored (OwnTracks receivers must tolerate them); `null`
/// counts as absent. A number may also come as a numeric string (`"tst":"1795452224"`), as the
/// OwnTracks Recorder accepts it. A known key with a value of the wrong JSON type is left absent
/// and listed in ``wrongTypes``: ``MessageDecoder`` rejects the message when the key is required
/// and drops the field (counted) when it is informational.
struct WirePayload {
    var type: String?
    var tid: String?
    var tst: Double?
    var lat: Double?
    var lon: Double?
    var acc: Double?
    var alt: Double?
    var vac: Double?
    var vel: Double?
    var cog: Double?
    var batt: Double?
    var bs: Double?
    var t: String?
    var m: Double?
    var createdAt: Double?
    var ve: Double?
    var vn: Double?
    var ms: Double?
    var tr: Double?
    var due: Double?
    var state: String?
    var since: Double?
    var event: String?
    var name: String?
    var desc: String?
    var face: String?
    var inregions: [String]?
    var inrids: [String]?
    var conn: String?
    var p: Double?
    var ssid: String?
    var bssid: String?
    var motionactivities: [String]?
    /// UTF-8 bytes of an attached image (`image`: an iOS point-of-interest photo in base64), or
    /// `nil` without one. ``MessageDecoder``'s size limit does not count it in a location.
    var imageBytes: Int?
    /// UTF-8 bytes of `data` (an encrypted message's ciphertext), which ``MessageDecoder``'s size
    /// limit does not count in an `encrypted` message.
    var dataBytes = 0
    var poi: String?
    /// The receipt stamp of Whereabouts' publisher (docs/receipts.md).
    var seq: Double?
    var seqEpoch: String?
    var seqSettled: Double?
    var unconfirmed: Double?
    var unconfirmedSince: Double?
    /// Known keys whose value had the wrong JSON type, in payload order.
    var wrongTypes: [String] = []

    /// Parses `payload`, throwing ``MessageRejectionReason/malformedJSON`` when it is not a JSON object.
    init(parsing payload: UnsafeBufferPointer<UInt8>) throws(MessageRejectionReason) {
        self.init()
        try Self.parse(payload, into: &self)
    }

    /// Every key absent: what ``parse(_:into:)`` fills.
    init() {}

    /// Parses `payload` into `wire` (every key absent before), throwing
    /// ``MessageRejectionReason/malformedJSON`` when it is not a JSON object. Filled in place, where
    /// its owner keeps it: building a local and returning it copied the forty-odd optionals in
    /// and out once more per message (about 5 % of a profiled ingest, 2026-11-28).
    static func parse(_ payload: UnsafeBufferPointer<UInt8>, into wire: inout WirePayload) throws(MessageRejectionReason) {
        do {
            try FlatJSON.parseObject(payload) { key, value in
                if case .null = value { return }
                if !wire.assign(key, value), wire.wrongTypes.count < 32 {
                    wire.wrongTypes.append(String(decoding: key, as: UTF8.self))
                }
            }
        } catch {
            throw .malformedJSON
        }
    }

    /// Stores `value` under the key spelled by `key`; returns false when a known key has the
    /// wrong JSON type. Keys are compared as bytes: no `String` per key.
    private mutating func assign(_ key: UnsafeBufferPointer<UInt8>, _ value: FlatJSON.Value) -> Bool {
        func `is`(_ name: StaticString) -> Bool {
            guard key.count == name.utf8CodeUnitCount, let base = key.baseAddress else { return false }
            return memcmp(base, name.utf8Start, key.count) == 0
        }
        guard let first = key.first else { return true }
        switch first {
        case UInt8(ascii: "_"):
            if `is`("_type") { return Self.string(value, into: &type) }
        case UInt8(ascii: "t"):
            if `is`("tst") { return Self.number(value, into: &tst) }
            if `is`("tid") { return Self.string(value, into: &tid) }
            if `is`("t") { return Self.string(value, into: &t) }
            if `is`("tr") { return Self.number(value, into: &tr) }
        case UInt8(ascii: "l"):
            if `is`("lat") { return Self.number(value, into: &lat) }
            if `is`("lon") { return Self.number(value, into: &lon) }
        case UInt8(ascii: "a"):
            if `is`("acc") { return Self.number(value, into: &acc) }
            if `is`("alt") { return Self.number(value, into: &alt) }
        case UInt8(ascii: "v"):
            if `is`("vel") { return Self.number(value, into: &vel) }
            if `is`("ve") { return Self.number(value, into: &ve) }
            if `is`("vn") { return Self.number(value, into: &vn) }
            if `is`("vac") { return Self.number(value, into: &vac) }
        case UInt8(ascii: "c"):
            if `is`("cog") { return Self.number(value, into: &cog) }
            if `is`("conn") { return Self.string(value, into: &conn) }
            if `is`("created_at") { return Self.number(value, into: &createdAt) }
        case UInt8(ascii: "b"):
            if `is`("batt") { return Self.number(value, into: &batt) }
            if `is`("bs") { return Self.number(value, into: &bs) }
        case UInt8(ascii: "m"):
            if `is`("m") { return Self.number(value, into: &m) }
            if `is`("ms") { return Self.number(value, into: &ms) }
            if `is`("motionactivities") { return Self.strings(value, into: &motionactivities) }
        case UInt8(ascii: "p"):
            if `is`("p") { return Self.number(value, into: &p) }
            if `is`("poi") { return Self.string(value, into: &poi) }
        case UInt8(ascii: "S"):
            if `is`("SSID") { return Self.string(value, into: &ssid) }
        case UInt8(ascii: "B"):
            if `is`("BSSID") { return Self.string(value, into: &bssid) }
        case UInt8(ascii: "s"):
            if `is`("state") { return Self.string(value, into: &state) }
            if `is`("since") { return Self.number(value, into: &since) }
            if `is`("seq") { return Self.number(value, into: &seq) }
            if `is`("seq_epoch") { return Self.string(value, into: &seqEpoch) }
            if `is`("seq_settled") { return Self.number(value, into: &seqSettled) }
        case UInt8(ascii: "u"):
            if `is`("unconfirmed") { return Self.number(value, into: &unconfirmed) }
            if `is`("unconfirmed_since") { return Self.number(value, into: &unconfirmedSince) }
        case UInt8(ascii: "e"):
            if `is`("event") { return Self.string(value, into: &event) }
        case UInt8(ascii: "n"):
            if `is`("name") { return Self.string(value, into: &name) }
        case UInt8(ascii: "d"):
            if `is`("desc") { return Self.string(value, into: &desc) }
            if `is`("due") { return Self.number(value, into: &due) }
            if `is`("data"), case .string(let ciphertext) = value { dataBytes = ciphertext.utf8.count }
        case UInt8(ascii: "f"):
            if `is`("face") { return Self.string(value, into: &face) }
        case UInt8(ascii: "i"):
            if `is`("image") {
                guard case .string(let image) = value else { return false }
                imageBytes = image.utf8.count
                return true
            }
            if `is`("inregions") {
                guard case .strings(let regions) = value else { return false }
                inregions = regions
                return true
            }
            if `is`("inrids") { return Self.strings(value, into: &inrids) }
        default:
            break
        }
        return true
    }

    private static func string(_ value: FlatJSON.Value, into field: inout String?) -> Bool {
        guard case .string(let string) = value else { return false }
        field = string
        return true
    }

    private static func strings(_ value: FlatJSON.Value, into field: inout [String]?) -> Bool {
        guard case .strings(let strings) = value else { return false }
        field = strings
        return true
    }

    private static func number(_ value: FlatJSON.Value, into field: inout Double?) -> Bool {
        switch value {
        case .number(let number):
            field = number
            return true
        case .string(let text):
            guard let number = numericString(text) else { return false }
            field = number
            return true
        default:
            return false
        }
    }

    /// The value of a string that spells a JSON number (optionally surrounded by spaces), as
    /// the OwnTracks Recorder accepts `"tst":"1795452224"`; `nil` for anything else (`"nan"`,
    /// `"inf"`, hexadecimal and empty strings included).
    static func numericString(_ text: String) -> Double? {
        let trimmed = text.utf8.count <= 32 ? text.trimmingCharacters(in: .whitespaces) : ""
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ byte in
            (48...57).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
        }), let number = Double(trimmed), number.isFinite else { return nil }
        return number
    }
}
