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
    init(parsing payload: [UInt8]) throws(RejectionReason) {
        var wrongType: String?
        do {
            try FlatJSON.parseObject(payload) { key, value in
                guard wrongType == nil else { return }
                if case .null = value { return }
                if !assign(key, value) { wrongType = key }
            }
        } catch {
            throw .malformedJSON
        }
        if let wrongType { throw .wrongType(wrongType) }
    }

    /// Stores `value` under `key`; returns false when a known key has the wrong JSON type.
    private mutating func assign(_ key: String, _ value: FlatJSON.Value) -> Bool {
        switch key {
        case "_type": return Self.string(value, into: &type)
        case "tid": return Self.string(value, into: &tid)
        case "t": return Self.string(value, into: &t)
        case "state": return Self.string(value, into: &state)
        case "event": return Self.string(value, into: &event)
        case "name": return Self.string(value, into: &name)
        case "tst": return Self.number(value, into: &tst)
        case "lat": return Self.number(value, into: &lat)
        case "lon": return Self.number(value, into: &lon)
        case "acc": return Self.number(value, into: &acc)
        case "alt": return Self.number(value, into: &alt)
        case "vac": return Self.number(value, into: &vac)
        case "vel": return Self.number(value, into: &vel)
        case "cog": return Self.number(value, into: &cog)
        case "batt": return Self.number(value, into: &batt)
        case "bs": return Self.number(value, into: &bs)
        case "m": return Self.number(value, into: &m)
        case "created_at": return Self.number(value, into: &createdAt)
        case "ve": return Self.number(value, into: &ve)
        case "vn": return Self.number(value, into: &vn)
        case "ms": return Self.number(value, into: &ms)
        case "since": return Self.number(value, into: &since)
        default: return true
        }
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
