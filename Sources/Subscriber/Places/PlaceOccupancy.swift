import Foundation
import WhereaboutsCore

/// Where every member is among the places of each of its circles: one ``PlaceTracker`` (the
/// publisher's, with the subscriber's ``PlaceRules``) per member and circle with places. Pure
/// bookkeeping; the store announces what it returns.
struct PlaceOccupancy: Sendable {
    private var trackers: [MemberID: [String: PlaceTracker]] = [:]

    /// What one update decided: the transitions per circle, and the earliest pending arrival.
    struct Update {
        var transitions: [(circle: String, transitions: [PlaceTransition])] = []
        var nextDeadline: Double?
    }

    /// Applies a fix of `member` dated `tst` to its tracker in each of `circles` that has places:
    /// first the arrivals whose dwell passed by then, then the fix. `replayed` marks retained
    /// state the broker replayed.
    mutating func observe(
        _ member: MemberID, in circles: [Circle], rules: PlaceRules,
        tst: Int, at position: Coordinate, accuracy: Double?, replayed: Bool
    ) -> Update {
        let time = Date(timeIntervalSince1970: Double(tst))
        let fix = Fix(time: time, latitude: position.latitude, longitude: position.longitude, horizontalAccuracy: accuracy)
        return update(member, in: circles, rules: rules) { tracker in
            tracker.advance(to: time) + tracker.observe(fix, replayed: replayed)
        }
    }

    /// Applies a device's own region transition (`enter`, or anything else for leave) of `member`.
    mutating func apply(
        _ member: MemberID, in circles: [Circle], rules: PlaceRules,
        event: String, region: String, tst: Int, replayed: Bool
    ) -> Update {
        update(member, in: circles, rules: rules) { tracker in
            tracker.apply(
                event == "enter" ? .enter : .leave, region: region, at: Date(timeIntervalSince1970: Double(tst)), replayed: replayed)
        }
    }

    /// Runs `step` on `member`'s tracker in each of `circles` that has places.
    private mutating func update(
        _ member: MemberID, in circles: [Circle], rules: PlaceRules, _ step: (inout PlaceTracker) -> [PlaceTransition]
    ) -> Update {
        var update = Update()
        for circle in circles where !circle.places.isEmpty {
            var tracker = trackers[member]?[circle.id] ?? PlaceTracker(places: circle.places, rules: rules)
            let transitions = step(&tracker)
            trackers[member, default: [:]][circle.id] = tracker
            if let deadline = tracker.nextDeadline?.timeIntervalSince1970 {
                update.nextDeadline = min(update.nextDeadline ?? deadline, deadline)
            }
            if !transitions.isEmpty { update.transitions.append((circle.id, transitions)) }
        }
        return update
    }

    /// Completes the arrivals whose dwell time passed at `now`: the transitions per member and
    /// circle, and the next pending arrival after them.
    mutating func advance(
        to now: Double
    ) -> (transitions: [(member: MemberID, circle: String, transitions: [PlaceTransition])], next: Double?) {
        var transitions: [(member: MemberID, circle: String, transitions: [PlaceTransition])] = []
        var next: Double?
        for (member, byCircle) in trackers {
            for (id, var tracker) in byCircle {
                guard let deadline = tracker.nextDeadline?.timeIntervalSince1970 else { continue }
                if deadline <= now {
                    let done = tracker.advance(to: Date(timeIntervalSince1970: now))
                    trackers[member]?[id] = tracker
                    transitions.append((member, id, done))
                }
                if let later = tracker.nextDeadline?.timeIntervalSince1970 { next = min(next ?? later, later) }
            }
        }
        return (transitions, next)
    }

    /// The place `member` is at in `circle`, and since when (epoch seconds).
    func current(of member: MemberID, in circle: Circle) -> (place: String, since: Int)? {
        guard let (place, since) = trackers[member]?[circle.id]?.current else { return nil }
        return (place.name, Int(since.timeIntervalSince1970))
    }

    /// Forgets a member no longer tracked.
    mutating func forget(_ member: MemberID) {
        trackers[member] = nil
    }

    /// Gives every tracker its circle's places after a reload to `next`: places removed or
    /// redefined (centre, radius or dwell changed) are forgotten, and so are circles that lost
    /// their places.
    mutating func keepUnchanged(in next: CircleRoster) {
        for (member, byCircle) in trackers {
            var kept: [String: PlaceTracker] = [:]
            for (id, var tracker) in byCircle {
                guard let places = next.circle(id: id)?.places, !places.isEmpty else { continue }
                tracker.replacePlaces(places)
                kept[id] = tracker
            }
            trackers[member] = kept.isEmpty ? nil : kept
        }
    }
}
