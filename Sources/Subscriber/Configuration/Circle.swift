import WhereaboutsCore

/// A circle from the circles file: a named group of members who see each other's positions.
package struct Circle: Sendable, Hashable, Codable {
    /// Stable id: lower-case letters, digits, `-` and `_`; used in topics and URLs.
    package var id: String
    /// Display name.
    package var name: String
    /// The members, in file order; each (user, device) appears at most once per circle.
    package var members: [Member]
    /// The circle's places (`places:`), in file order; names are unique ignoring case.
    package var places: [Place]
    /// What the circle's audience sees of its members (`privacy:`); a member may share less
    /// (``Member/share``). Default `exact`.
    package var privacy: PrivacyLevel
    /// The cell size in metres positions are snapped to at the `coarse` level (`grid:`). Default 500.
    var grid: Double
    /// Whether the subscriber republishes the circle's members as OwnTracks friends under
    /// `<tree root>/<user>/<device>` (`owntracks: true`; ``ownTracksTreeRoot(viewPrefix:)``), for
    /// OwnTracks apps whose subscription topic is `<tree root>/#`. Default `false`.
    package var ownTracksTree: Bool

    /// The one topic level under which this circle's OwnTracks tree is published:
    /// `whereabouts-circles-<id>` with the default view prefix (the prefix with `/` written as
    /// `-`, then `-<id>`). An app subscribes to `<root>/#`. One level, so that a member's topic
    /// `<root>/<user>/<device>` has as many levels as the apps' own `owntracks/<user>/<device>`:
    /// the iOS app keys a friend by that many leading levels (owntracks/ios `OwnTracking.m`,
    /// `processMessage`), the Android app by the whole topic (`MessageBase.contactKey`).
    package func ownTracksTreeRoot(viewPrefix: String = "whereabouts/circles") -> String {
        OwnTracksTree.root(viewPrefix: viewPrefix, circle: id)
    }

    /// Creates a circle.
    package init(
        id: String, name: String, members: [Member], places: [Place] = [], privacy: PrivacyLevel = .exact, grid: Double = 500,
        ownTracksTree: Bool = false
    ) {
        self.ownTracksTree = ownTracksTree
        self.privacy = privacy
        self.grid = grid
        self.id = id
        self.name = name
        self.members = members
        self.places = places
    }

    /// What this circle's audience sees of `member`: the stricter of the circle's level and what
    /// the member shares with it.
    func level(of member: Member) -> PrivacyLevel {
        max(privacy, member.share ?? .exact)
    }

    /// The circle's id and name.
    package var summary: CircleSummary { CircleSummary(id: id, name: name) }
}
