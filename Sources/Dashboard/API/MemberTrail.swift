import Subscriber

/// The body of `GET /api/circles/<id>/members/<user>/<device>/trail`.
struct MemberTrail: Codable, Sendable {
    var circle: String
    var user: String
    var device: String
    var trail: [TrailPoint]
}
