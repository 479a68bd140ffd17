#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import WhereaboutsCore

/// The device's places: those of the `--places` file and those set by command, which of them the
/// device is inside, and the store that keeps command waypoints and that state across restarts.
///
/// Owned by the ``Reporter`` actor (one owner, no lock); every change that matters after a
/// restart (waypoints set or cleared, a place entered or left) is saved at once.
struct DevicePlaces: Sendable {
    private var tracker: PlaceTracker
    private let filePlaces: [Place]
    private var commandPlaces: [Place]
    private let store: WaypointStore?
    private let logger: Logger

    /// The outcome of a `setWaypoints`.
    struct Applied: Sendable {
        /// Waypoints added or replaced.
        var stored: Int
        /// Waypoints refused, with the reason.
        var rejected: [WaypointBatch.Rejection]
    }

    /// Loads the command waypoints and the inside state from `store` (when given).
    init(filePlaces: [Place], rules: PlaceRules, store: WaypointStore?, logger: Logger) {
        self.filePlaces = filePlaces
        self.store = store
        self.logger = logger
        let stored = store?.load() ?? WaypointStore.Contents()
        let fileKeys = Set(filePlaces.map(\.key))
        commandPlaces = stored.waypoints.filter { !fileKeys.contains($0.key) }
        tracker = PlaceTracker(places: filePlaces + commandPlaces, rules: rules, inside: Set(stored.inside))
    }

    /// Every place, file places first.
    var all: [Place] { tracker.places }

    /// The places the device is inside now.
    var inside: [Place] { tracker.inside }

    /// Feeds an accepted fix; returns the transitions it completes (saved before returning).
    mutating func update(with fix: Fix) -> [PlaceTransition] {
        let transitions = tracker.observe(fix)
        if !transitions.isEmpty { save() }
        return transitions
    }

    /// Adds or replaces (by name, ignoring case) the valid waypoints of `batch`; a waypoint named
    /// like a place of the `--places` file is refused (edit the file instead).
    mutating func set(_ batch: WaypointBatch, now: Int) -> Applied {
        var rejected = batch.rejected
        let fileKeys = Set(filePlaces.map(\.key))
        var stored = 0
        var places = commandPlaces
        for item in batch.items {
            let place = item.place(now: now)
            guard !fileKeys.contains(place.key) else {
                rejected.append(WaypointBatch.Rejection(
                    index: item.index, name: place.name,
                    reason: "a place of this name is defined in the --places file; change it there"))
                continue
            }
            places.removeAll { $0.key == place.key }
            places.append(place)
            stored += 1
        }
        guard stored > 0 else { return Applied(stored: 0, rejected: rejected) }
        commandPlaces = places
        tracker.replacePlaces(filePlaces + commandPlaces)
        save()
        return Applied(stored: stored, rejected: rejected)
    }

    /// Removes every command waypoint; returns how many there were. The `--places` file's stay.
    mutating func clear() -> Int {
        let count = commandPlaces.count
        commandPlaces = []
        tracker.replacePlaces(filePlaces)
        save()
        return count
    }

    private func save() {
        store?.save(WaypointStore.Contents(waypoints: commandPlaces, inside: tracker.inside.map(\.key)))
    }
}
