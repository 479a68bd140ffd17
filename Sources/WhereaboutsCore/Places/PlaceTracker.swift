#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Works out when one device enters and leaves its places, from its fixes, its own OwnTracks
/// region transitions and the passing of time: pure logic, no I/O and no clock of its own. The
/// publisher keeps one for the device; the subscriber one per member and circle.
///
/// A place's occupancy, per fix (``observe(_:replayed:)``), with the leave rule
/// ``PlaceRules/fixesToLeave`` (*n*):
///
/// | from | to | when | transition |
/// |---|---|---|---|
/// | outside | arriving | a fix within the radius | none (`enter` at once when the dwell is 0) |
/// | arriving | inside | a fix not beyond the leave boundary when the dwell has passed since the first fix inside | `enter`, dated at the first fix inside |
/// | arriving | outside | a fix beyond the leave boundary | none |
/// | inside | leaving | a fix beyond the leave boundary, radius + max(the fix's accuracy, margin) | none (`leave` at once when *n* is 1) |
/// | leaving | outside | the *n*-th fix in a row beyond the leave boundary | `leave`, with that fix |
/// | leaving | inside | a fix not beyond it | none |
///
/// Fixes between the radius and the leave boundary change nothing, so GPS jitter at the edge
/// never flaps. ``advance(to:)`` completes arrivals whose dwell passed by the clock alone (a
/// member who arrives and falls silent still arrives); the subscriber calls it before each fix,
/// the device, with no timer, completes arrivals by fixes only. ``apply(_:region:at:replayed:)``
/// takes a device's own region transition at its word. Input older than the newest applied is
/// ignored: fixes come in time order.
public struct PlaceTracker: Sendable {
    /// Where someone is with respect to one place; a place without an entry is outside.
    private enum Occupancy: Sendable, Hashable {
        case arriving(since: Date, replayed: Bool)
        case inside(since: Date)
        case leaving(since: Date, fixesBeyond: Int)
    }

    /// The rules in force.
    public let rules: PlaceRules
    /// The places watched, in the order given.
    public private(set) var places: [Place]
    /// By ``Place/key``.
    private var occupancy: [String: Occupancy] = [:]
    /// The time of the newest fix or transition applied.
    private var newest = Date.distantPast

    /// Starts watching `places`; those whose key is in `inside` start inside (state kept across a
    /// restart), the others outside.
    public init(places: [Place], rules: PlaceRules, inside: Set<String> = []) {
        self.rules = rules
        self.places = places
        for place in places where inside.contains(place.key) { occupancy[place.key] = .inside(since: .distantPast) }
    }

    /// Replaces the places watched. A place that stays with the same geometry
    /// (``Place/sameGeometry(as:)``) keeps its occupancy; new or changed places start outside.
    public mutating func replacePlaces(_ newPlaces: [Place]) {
        var kept: [String: Occupancy] = [:]
        for place in newPlaces {
            if let old = places.first(where: { $0.key == place.key }), old.sameGeometry(as: place), let state = occupancy[place.key] {
                kept[place.key] = state
            }
        }
        places = newPlaces
        occupancy = kept
    }

    /// The places inside now (entered and not left), in the order of ``places``.
    public var inside: [Place] {
        places.filter { place in
            switch occupancy[place.key] {
            case .inside, .leaving: true
            case .arriving, nil: false
            }
        }
    }

    /// Whether the tracker holds nothing: outside every place, arriving at none.
    public var isEmpty: Bool { occupancy.isEmpty }

    /// The place someone is at, with the time they arrived: of the places they are inside, the
    /// smallest (an office inside a campus is the office).
    public var current: (place: Place, since: Date)? {
        var best: (place: Place, since: Date)?
        for place in places {
            let since: Date
            switch occupancy[place.key] {
            case .inside(let start), .leaving(let start, _): since = start
            case .arriving, nil: continue
            }
            if let found = best, found.place.radius <= place.radius { continue }
            best = (place, since)
        }
        return best
    }

    /// When the next arrival completes unless a fix says otherwise.
    public var nextDeadline: Date? {
        places.compactMap { place -> Date? in
            guard case .arriving(let since, _) = occupancy[place.key] else { return nil }
            return since.addingTimeInterval(rules.dwell(of: place))
        }.min()
    }

    /// Feeds one fix; returns the transitions it completes, leaves before enters. `replayed`
    /// marks replayed input (see ``PlaceTransition/replayed``).
    public mutating func observe(_ fix: Fix, replayed: Bool = false) -> [PlaceTransition] {
        guard fix.time >= newest else { return [] }
        newest = fix.time
        var leaves: [PlaceTransition] = []
        var enters: [PlaceTransition] = []
        for place in places {
            let distance = Geodesy.distance(place.centre, fix.coordinate)
            let beyond = rules.isBeyond(distance, of: place, accuracy: fix.horizontalAccuracy)
            let dwell = rules.dwell(of: place)
            switch occupancy[place.key] {
            case nil:
                guard distance <= place.radius else { continue }
                if dwell <= 0 {
                    occupancy[place.key] = .inside(since: fix.time)
                    enters.append(PlaceTransition(event: .enter, place: place, time: fix.time, fix: fix, replayed: replayed))
                } else {
                    occupancy[place.key] = .arriving(since: fix.time, replayed: replayed)
                }
            case .arriving(let since, let arrivalReplayed):
                if beyond {
                    occupancy[place.key] = nil
                } else if fix.time.timeIntervalSince(since) >= dwell {
                    occupancy[place.key] = .inside(since: since)
                    enters.append(PlaceTransition(event: .enter, place: place, time: since, fix: fix, replayed: arrivalReplayed))
                }
            case .inside(let since):
                if beyond { leaves += leave(place, since: since, fixesBeyond: 1, fix: fix, replayed: replayed) }
            case .leaving(let since, let count):
                if beyond {
                    leaves += leave(place, since: since, fixesBeyond: count + 1, fix: fix, replayed: replayed)
                } else {
                    occupancy[place.key] = .inside(since: since)
                }
            }
        }
        return leaves + enters
    }

    /// The leave rule: the `fixesBeyond`-th fix in a row beyond the boundary leaves once it
    /// reaches ``PlaceRules/fixesToLeave``; before that the place is *leaving*.
    private mutating func leave(_ place: Place, since: Date, fixesBeyond: Int, fix: Fix, replayed: Bool) -> [PlaceTransition] {
        guard fixesBeyond >= rules.fixesToLeave else {
            occupancy[place.key] = .leaving(since: since, fixesBeyond: fixesBeyond)
            return []
        }
        occupancy[place.key] = nil
        return [PlaceTransition(event: .leave, place: place, time: fix.time, fix: fix, replayed: replayed)]
    }

    /// Completes the arrivals whose dwell time has passed at `now`, dated at their first fix inside.
    public mutating func advance(to now: Date) -> [PlaceTransition] {
        var enters: [PlaceTransition] = []
        for place in places {
            guard case .arriving(let since, let replayed) = occupancy[place.key],
                since.addingTimeInterval(rules.dwell(of: place)) <= now
            else { continue }
            occupancy[place.key] = .inside(since: since)
            enters.append(PlaceTransition(event: .enter, place: place, time: since, replayed: replayed))
        }
        return enters
    }

    /// Applies a device's own region transition dated `time`, if `region` names one of the places
    /// (ignoring case): the device already judged it, so it counts at once. Otherwise changes nothing.
    public mutating func apply(
        _ event: PlaceTransition.Event, region: String, at time: Date, replayed: Bool = false
    ) -> [PlaceTransition] {
        let key = region.lowercased()
        guard let place = places.first(where: { $0.key == key }), time >= newest else { return [] }
        newest = time
        switch (event, occupancy[key]) {
        case (.enter, .inside), (.enter, .leaving):
            occupancy[key] = occupancy[key].map { state in
                if case .leaving(let since, _) = state { return .inside(since: since) }
                return state
            }
            return []
        case (.enter, _):
            occupancy[key] = .inside(since: time)
            return [PlaceTransition(event: .enter, place: place, time: time, replayed: replayed)]
        case (.leave, .inside), (.leave, .leaving):
            occupancy[key] = nil
            return [PlaceTransition(event: .leave, place: place, time: time, replayed: replayed)]
        case (.leave, _):
            occupancy[key] = nil
            return []
        }
    }
}
