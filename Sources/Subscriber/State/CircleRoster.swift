/// The circles one subscriber instance owns, indexed for ingest: by id, and the circles each
/// member device belongs to.
struct CircleRoster: Sendable {
    /// The owned circles in circles-file order.
    private(set) var circles: [Circle]
    private var byID: [String: Circle]
    private var circlesOf: [MemberID: [String]]
    /// The members of at least one owned circle with places (empty when no circle has any, so
    /// that ingest skips the place rules without a lookup).
    private var inCirclesWithPlaces: Set<MemberID>
    /// Ids of the owned circles that ask for an OwnTracks tree (`owntracks: true`).
    private(set) var ownTracksCircles: Set<String>

    /// Indexes `circles` (already filtered to the shard); the first of two equal ids wins.
    init(_ circles: [Circle]) {
        self.circles = circles
        byID = Dictionary(circles.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var circlesOf: [MemberID: [String]] = [:]
        for circle in circles {
            for member in circle.members { circlesOf[member.id, default: []].append(circle.id) }
        }
        self.circlesOf = circlesOf
        inCirclesWithPlaces = Set(circles.lazy.filter { !$0.places.isEmpty }.flatMap { $0.members.map(\.id) })
        ownTracksCircles = Set(circles.lazy.filter(\.ownTracksTree).map(\.id))
    }

    /// The circle with `id`, if owned.
    func circle(id: String) -> Circle? { byID[id] }

    /// The ids of the circles `member` belongs to, or `nil` when no owned circle has it.
    func circleIDs(of member: MemberID) -> [String]? { circlesOf[member] }

    /// Whether `member` belongs to an owned circle that has places.
    func inCircleWithPlaces(_ member: MemberID) -> Bool {
        !inCirclesWithPlaces.isEmpty && inCirclesWithPlaces.contains(member)
    }

    /// Whether `member` is tracked: a member of at least one owned circle.
    func tracks(_ member: MemberID) -> Bool { circlesOf[member] != nil }

    /// Every tracked member device, unsorted.
    var trackedMembers: Dictionary<MemberID, [String]>.Keys { circlesOf.keys }

    /// Each tracked member's circle ids.
    var membership: [MemberID: [String]] { circlesOf }

    /// The member of circle `circle` with this user and device, if there is one: a circle's pages
    /// never reveal a device outside it.
    func member(_ member: MemberID, inCircle circle: String) -> Member? {
        byID[circle]?.members.first { $0.id == member }
    }

    /// What replacing this roster by `next` changes, at epoch second `now`.
    func changes(to next: CircleRoster, at now: Int) -> RosterChange {
        var change = RosterChange()
        for circle in next.circles {
            let before = Set(byID[circle.id]?.members.map(\.id) ?? [])
            let after = Set(circle.members.map(\.id))
            for member in circle.members where !before.contains(member.id) {
                change.events.append(CircleEvent(circle: circle.id, user: member.user, device: member.device, event: .joined, tst: now))
            }
            for member in before.subtracting(after).sorted() {
                change.events.append(CircleEvent(circle: circle.id, user: member.user, device: member.device, event: .left, tst: now))
            }
            if byID[circle.id] != circle { change.changedCircles.append(circle.id) }
        }
        change.removedCircles = circles.map(\.id).filter { next.byID[$0] == nil }
        change.addedMembers = next.circlesOf.keys.filter { circlesOf[$0] == nil }.sorted()
        change.removedMembers = circlesOf.keys.filter { next.circlesOf[$0] == nil }.sorted()
        return change
    }
}

/// The difference between two rosters: membership events, circles to republish or clear, and
/// devices to subscribe to or forget.
struct RosterChange: Sendable {
    /// `joined`/`left` events per circle.
    var events: [CircleEvent] = []
    /// Circles kept whose definition changed.
    var changedCircles: [String] = []
    /// Circles no longer owned: their retained view is cleared.
    var removedCircles: [String] = []
    /// Devices now tracked that were not before.
    var addedMembers: [MemberID] = []
    /// Devices no longer in any owned circle.
    var removedMembers: [MemberID] = []
}
