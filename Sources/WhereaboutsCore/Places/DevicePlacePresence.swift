import Foundation

/// Works out, fix by fix, when the device enters and leaves its places: pure logic, no I/O.
///
/// | from | to | when | transition |
/// |---|---|---|---|
/// | outside | arriving | a fix within the radius | none |
/// | arriving | inside | the dwell has passed since the first fix inside, without a fix beyond the leave boundary | `enter`, with the fix that completed the dwell |
/// | arriving | outside | a fix beyond the leave boundary | none |
/// | inside | leaving | a fix beyond the leave boundary, radius + max(the fix's accuracy, margin) | none |
/// | leaving | outside | the next fix beyond the leave boundary too | `leave`, with that fix |
/// | leaving | inside | the next fix not beyond it | none |
///
/// Fixes between the radius and the leave boundary change nothing, so GPS jitter at the edge
/// never flaps; and one fix beyond it is not enough, so a single multipath outlier (the
/// simulator's, 80-400 m off with a plausible accuracy, get past the rejection filters now and
/// then) does not make a device that stands at home leave and enter again. Fixes must come in
/// time order (the publisher feeds accepted fixes only).
public struct DevicePlacePresence: Sendable {
    private enum State: Sendable, Hashable {
        case outside
        case arriving(since: Date)
        case inside
        case leaving
    }

    /// The rules in force.
    public let rules: DevicePlaceRules
    /// The places watched, in the order given.
    public private(set) var places: [DevicePlace]
    private var states: [String: State] = [:]

    /// Starts watching `places`; those whose key is in `inside` start inside (state kept across a
    /// restart), the others outside.
    public init(places: [DevicePlace], rules: DevicePlaceRules = DevicePlaceRules(), inside: Set<String> = []) {
        self.rules = rules
        self.places = places
        for place in places where inside.contains(place.key) { states[place.key] = .inside }
    }

    /// Replaces the places watched. A place that stays with the same geometry keeps its state;
    /// new or changed places start outside.
    public mutating func replacePlaces(_ newPlaces: [DevicePlace]) {
        var kept: [String: State] = [:]
        for place in newPlaces {
            if let old = places.first(where: { $0.key == place.key }), old.sameGeometry(as: place), let state = states[place.key] {
                kept[place.key] = state
            }
        }
        places = newPlaces
        states = kept
    }

    /// The places the device is inside now (entered and not left), in the order of ``places``.
    public var inside: [DevicePlace] {
        places.filter { states[$0.key] == .inside || states[$0.key] == .leaving }
    }

    /// Feeds one fix; returns the transitions it completes, leaves before enters.
    public mutating func update(with fix: Fix) -> [DevicePlaceTransition] {
        var leaves: [DevicePlaceTransition] = []
        var enters: [DevicePlaceTransition] = []
        let position = fix.coordinate
        let accuracy = fix.horizontalAccuracy ?? 0
        for place in places {
            let distance = Geodesy.distance(place.centre, position)
            let beyond = distance > place.radius + max(accuracy, rules.margin)
            let within = distance <= place.radius
            let dwell = place.dwell ?? rules.dwell
            switch states[place.key] ?? .outside {
            case .outside:
                guard within else { continue }
                if dwell <= 0 {
                    states[place.key] = .inside
                    enters.append(DevicePlaceTransition(event: .enter, place: place, fix: fix))
                } else {
                    states[place.key] = .arriving(since: fix.time)
                }
            case .arriving(let since):
                if beyond {
                    states[place.key] = .outside
                } else if fix.time.timeIntervalSince(since) >= dwell {
                    states[place.key] = .inside
                    enters.append(DevicePlaceTransition(event: .enter, place: place, fix: fix))
                }
            case .inside:
                if beyond { states[place.key] = .leaving }
            case .leaving:
                if beyond {
                    states[place.key] = .outside
                    leaves.append(DevicePlaceTransition(event: .leave, place: place, fix: fix))
                } else {
                    states[place.key] = .inside
                }
            }
        }
        return leaves + enters
    }
}
