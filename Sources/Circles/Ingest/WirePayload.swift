/// Every key Whereabouts reads from OwnTracks and presence JSON, all optional, decoded in one pass.
/// Unknown keys are ignored (OwnTracks receivers must tolerate them).
struct WirePayload: Decodable {
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

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case tid, tst, lat, lon, acc, alt, vac, vel, cog, batt, bs, t, m
        case createdAt = "created_at"
        case ve, vn, ms, state, since, event, name
    }
}
