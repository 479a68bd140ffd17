/// Where every member is among the places of each of its circles: one ``PlaceTracker`` per
/// member and circle with places. Pure bookkeeping; the store announces what it returns.
struct PlacePresence: Sendable {
    private var trackers: [MemberID: [String: PlaceTracker]] = [:]

    /// What one update decided: the changes per circle, and the earliest pending arrival.
    struct Update {
        var changes: [(circle: String, changes: [PlaceChange])] = []
        var nextDeadline: Double?
    }

    /// Runs `step` on `member`'s tracker in each of `circles` that has places.
    mutating func update(
        _ member: MemberID, in circles: [Circle], rules: PlaceRules,
        _ step: (inout PlaceTracker, [Place]) -> [PlaceChange]
    ) -> Update {
        var update = Update()
        for circle in circles where !circle.places.isEmpty {
            var tracker = trackers[member]?[circle.id] ?? PlaceTracker()
            let changes = step(&tracker, circle.places)
            trackers[member, default: [:]][circle.id] = tracker
            if let deadline = tracker.nextDeadline(places: circle.places, rules: rules) {
                update.nextDeadline = min(update.nextDeadline ?? deadline, deadline)
            }
            if !changes.isEmpty { update.changes.append((circle.id, changes)) }
        }
        return update
    }

    /// Completes the arrivals whose dwell time passed at `now`: the changes per member and
    /// circle, and the next pending arrival after them.
    mutating func advance(
        to now: Double, roster: CircleRoster, rules: PlaceRules
    ) -> (changes: [(member: MemberID, circle: String, changes: [PlaceChange])], next: Double?) {
        var changes: [(member: MemberID, circle: String, changes: [PlaceChange])] = []
        var next: Double?
        for (member, byCircle) in trackers {
            for (id, var tracker) in byCircle {
                guard let places = roster.circle(id: id)?.places,
                    let deadline = tracker.nextDeadline(places: places, rules: rules)
                else { continue }
                if deadline <= now {
                    let done = tracker.advance(to: now, places: places, rules: rules)
                    trackers[member]?[id] = tracker
                    changes.append((member, id, done))
                }
                if let later = tracker.nextDeadline(places: places, rules: rules) { next = min(next ?? later, later) }
            }
        }
        return (changes, next)
    }

    /// The place `member` is at in `circle`, and since when.
    func current(of member: MemberID, in circle: Circle) -> (place: String, since: Int)? {
        trackers[member]?[circle.id]?.current(in: circle.places)
    }

    /// Forgets a member no longer tracked.
    mutating func forget(_ member: MemberID) {
        trackers[member] = nil
    }

    /// Drops what the trackers hold about places a reload from `old` to `next` removed or
    /// redefined (centre, radius or dwell changed), and about circles that lost their places.
    mutating func keepUnchanged(from old: CircleRoster, to next: CircleRoster) {
        for (member, byCircle) in trackers {
            var kept: [String: PlaceTracker] = [:]
            for (id, var tracker) in byCircle {
                guard let places = next.circle(id: id)?.places, !places.isEmpty else { continue }
                let before = Set(old.circle(id: id)?.places ?? [])
                tracker.keep(only: Set(places.filter { before.contains($0) }.map(\.name)))
                kept[id] = tracker
            }
            trackers[member] = kept.isEmpty ? nil : kept
        }
    }
}
