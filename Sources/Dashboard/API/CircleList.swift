import Subscriber

/// The body of `GET /api/circles`.
struct CircleList: Codable, Sendable {
    var circles: [CircleListEntry]
}
