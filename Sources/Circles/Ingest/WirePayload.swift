import Foundation

/// Every key Whereabouts reads from OwnTracks and presence JSON, all optional, filled in one pass
/// over the payload. Unknown keys are ignored (OwnTracks receivers must tolerate them); a known
/// key with a value of the wrong JSON type is an error naming the key; `null` counts as absent.
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
    var state: String?
    var since: Double?
    var event: String?
    var name: String?

    /// Parses `payload`, throwing ``RejectionReason/malformedJSON`` or ``RejectionReason/wrongType(_:)``.
    init(parsing payload: UnsafeBufferPointer<UInt8>) throws(RejectionReason) {
        var wrongType: String?
        do {
            try FlatJSON.parseObject(payload) { key, value in
                guard wrongType == nil else { return }
                if case .null = value { return }
                if !assign(key, value) { wrongType = String(decoding: key, as: UTF8.self) }
            }
        } catch {
            throw .malformedJSON
        }
        if let wrongType { throw .wrongType(wrongType) }
    }

    /// Stores `value` under the key spelled by `key`; returns false when a known key has the
    /// wrong JSON type. Keys are compared as bytes: no `String` per key.
    private mutating func assign(_ key: UnsafeBufferPointer<UInt8>, _ value: FlatJSON.Value) -> Bool {
        func `is`(_ name: StaticString) -> Bool {
            key.count == name.utf8CodeUnitCount && memcmp(key.baseAddress!, name.utf8Start, key.count) == 0
        }
        guard let first = key.first else { return true }
        switch first {
        case UInt8(ascii: "_"):
            if `is`("_type") { return Self.string(value, into: &type) }
        case UInt8(ascii: "t"):
            if `is`("tst") { return Self.number(value, into: &tst) }
            if `is`("tid") { return Self.string(value, into: &tid) }
            if `is`("t") { return Self.string(value, into: &t) }
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
            if `is`("created_at") { return Self.number(value, into: &createdAt) }
        case UInt8(ascii: "b"):
            if `is`("batt") { return Self.number(value, into: &batt) }
            if `is`("bs") { return Self.number(value, into: &bs) }
        case UInt8(ascii: "m"):
            if `is`("m") { return Self.number(value, into: &m) }
            if `is`("ms") { return Self.number(value, into: &ms) }
        case UInt8(ascii: "s"):
            if `is`("state") { return Self.string(value, into: &state) }
            if `is`("since") { return Self.number(value, into: &since) }
        case UInt8(ascii: "e"):
            if `is`("event") { return Self.string(value, into: &event) }
        case UInt8(ascii: "n"):
            if `is`("name") { return Self.string(value, into: &name) }
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

    private static func number(_ value: FlatJSON.Value, into field: inout Double?) -> Bool {
        guard case .number(let number) = value else { return false }
        field = number
        return true
    }
}
