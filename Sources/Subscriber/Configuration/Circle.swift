/// A circle from the circles file: a named group of members who see each other's positions.
public struct Circle: Sendable, Hashable, Codable {
    /// Stable id: lower-case letters, digits, `-` and `_`; used in topics and URLs.
    public var id: String
    /// Display name.
    public var name: String
    /// The members, in file order; each (user, device) appears at most once per circle.
    public var members: [Member]

    /// Creates a circle.
    public init(id: String, name: String, members: [Member]) {
        self.id = id
        self.name = name
        self.members = members
    }

    /// The circle's id and name.
    public var summary: CircleSummary { CircleSummary(id: id, name: name) }
}
