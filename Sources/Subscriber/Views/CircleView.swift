import Foundation
import WhereaboutsCore

/// One circle's membership view: every member with their last fix, status, display position and
/// short trail, as published retained on `whereabouts/circles/<id>/view`, served by
/// `GET /api/circles/<id>` and pushed over the dashboard WebSocket.
///
/// The JSON shape is the circle view contract in the team notes; `README.md` (`## Circle views`)
/// shows an example. Members appear in circles-file order.
package struct CircleView: Sendable, Hashable, Codable {
    /// Always `"view"`.
    package var type: String = "view"
    /// Which circle this is.
    package var circle: CircleSummary
    /// Epoch seconds (fractional) at which ages, statuses and display positions were computed.
    package var generatedAt: Double
    /// The circle's members, one entry per configured member, heard from or not.
    package var members: [MemberView]
    /// The circle's places, for drawing: name, centre, radius (and dwell when set).
    package var places: [Place]

    enum CodingKeys: String, CodingKey {
        case type = "_type"
        case circle, generatedAt, members, places
    }

    /// Creates a view.
    package init(circle: CircleSummary, generatedAt: Double, members: [MemberView], places: [Place] = []) {
        self.places = places
        self.circle = circle
        self.generatedAt = generatedAt
        self.members = members
    }

    /// Decodes a view; `places` may be absent (views of subscribers before places existed).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        circle = try container.decode(CircleSummary.self, forKey: .circle)
        generatedAt = try container.decode(Double.self, forKey: .generatedAt)
        members = try container.decode([MemberView].self, forKey: .members)
        places = try container.decodeIfPresent([Place].self, forKey: .places) ?? []
    }

    /// The member entry for `user`/`device`, if that device is a member of this circle.
    package func member(user: String, device: String) -> MemberView? {
        members.first { $0.user == user && $0.device == device }
    }
}
