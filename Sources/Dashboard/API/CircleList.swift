import Subscriber

/// One entry of `GET /api/circles`: a circle with its member count and how many members are in
/// each status.
struct CircleListEntry: Sendable, Hashable, Codable {
    /// The circle's id, as used in `/api/circles/<id>`.
    var id: String
    /// The circle's display name.
    var name: String
    /// How many members the circle has.
    var members: Int
    /// How many members are in each status (`online`, `offline`, `stale`, `unknown`); every
    /// status is present, with 0 when no member has it.
    var status: [String: Int]

    /// Summarises a view.
    init(_ view: CircleView) {
        id = view.circle.id
        name = view.circle.name
        members = view.members.count
        var counts = Dictionary(uniqueKeysWithValues: MemberStatus.allCases.map { ($0.rawValue, 0) })
        for member in view.members {
            counts[member.status.rawValue, default: 0] += 1
        }
        status = counts
    }
}

/// The body of `GET /api/circles`.
struct CircleList: Codable, Sendable {
    var circles: [CircleListEntry]
}
