/// A circle from the circles file: a named group of members who see each other's positions.
public struct Circle: Sendable, Hashable, Codable {
    /// Stable id: lower-case letters, digits, `-` and `_`; used in topics and URLs.
    public var id: String
    /// Display name.
    public var name: String
    /// The members, in file order; each (user, device) appears at most once per circle.
    public var members: [Member]
    /// The circle's places (`places:`), in file order; names are unique ignoring case.
    public var places: [Place]

    /// Creates a circle.
    public init(id: String, name: String, members: [Member], places: [Place] = []) {
        self.id = id
        self.name = name
        self.members = members
        self.places = places
    }

    /// The circle's id and name.
    public var summary: CircleSummary { CircleSummary(id: id, name: name) }
}
