import WhereaboutsCore

/// Where one member is among one circle's places: pure decisions from fixes, the device's own
/// region transitions and the passing of time, with no I/O and no clock of its own.
///
/// Per place (docs/subscriber.md, "Places"):
/// - *outside* → *arriving*: a fix within the radius.
/// - *arriving* → *inside*, event `arrived` dated at the first fix inside: the dwell time passed
///   (seen at a later fix or at ``advance(to:places:rules:)``, so a member who stops and falls
///   silent still arrives) with no fix beyond the leave boundary.
/// - *arriving* → *outside*, no event: a fix beyond the leave boundary.
/// - *inside* → *outside*, event `departed`: a fix beyond the leave boundary, radius +
///   max(the fix's accuracy, ``PlaceRules/margin``).
/// - Fixes between the radius and the leave boundary change nothing, so GPS jitter at the edge
///   never flaps.
/// - A device's own OwnTracks `transition` for a region named like the place sets *inside* or
///   *outside* at once: the device already judged it.
///
/// Input older than the newest already applied is ignored: fixes are fed in time order.
struct PlaceTracker: Sendable, Hashable {
    private enum Presence: Sendable, Hashable {
        case arriving(since: Int, quiet: Bool)
        case inside(since: Int)
    }

    /// By place name; a place without an entry is *outside*.
    private var presence: [String: Presence] = [:]
    /// The `tst` of the newest fix or transition applied.
    private var newest = Int.min

    /// Whether the tracker holds nothing (the member is outside every place).
    var isEmpty: Bool { presence.isEmpty }

    /// Applies a fix dated `tst` at `position` with horizontal accuracy `accuracy` (metres).
    /// `quiet` marks replayed state: changes it causes are not announced.
    mutating func observe(
        tst: Int, at position: Coordinate, accuracy: Double?, places: [Place], rules: PlaceRules, quiet: Bool
    ) -> [PlaceChange] {
        guard tst >= newest else { return [] }
        newest = tst
        var changes = advance(to: Double(tst), places: places, rules: rules)
        for place in places {
            let distance = Geodesy.distance(position, place.centre)
            let band = rules.hysteresis ? max(accuracy ?? 0, rules.margin) : 0
            let outsideBoundary = distance > place.radius + band
            switch presence[place.name] {
            case nil:
                guard distance <= place.radius else { continue }
                if rules.dwell(of: place) <= 0 {
                    presence[place.name] = .inside(since: tst)
                    changes.append(PlaceChange(kind: .arrived, place: place.name, tst: tst, quiet: quiet))
                } else {
                    presence[place.name] = .arriving(since: tst, quiet: quiet)
                }
            case .arriving:
                if outsideBoundary { presence[place.name] = nil }
            case .inside:
                if outsideBoundary {
                    presence[place.name] = nil
                    changes.append(PlaceChange(kind: .departed, place: place.name, tst: tst, quiet: quiet))
                }
            }
        }
        return changes
    }

    /// Completes the arrivals whose dwell time has passed at `now` (epoch seconds).
    mutating func advance(to now: Double, places: [Place], rules: PlaceRules) -> [PlaceChange] {
        var changes: [PlaceChange] = []
        for place in places {
            guard case .arriving(let since, let quiet) = presence[place.name],
                Double(since) + rules.dwell(of: place) <= now
            else { continue }
            presence[place.name] = .inside(since: since)
            changes.append(PlaceChange(kind: .arrived, place: place.name, tst: since, quiet: quiet))
        }
        return changes
    }

    /// Applies a device's own region transition (`entered` or left) dated `tst`, if `region`
    /// names one of `places` (ignoring case); otherwise changes nothing.
    mutating func transition(entered: Bool, region: String, tst: Int, places: [Place], quiet: Bool) -> [PlaceChange] {
        let key = region.lowercased()
        guard let place = places.first(where: { $0.name.lowercased() == key }), tst >= newest else { return [] }
        newest = tst
        switch (entered, presence[place.name]) {
        case (true, .inside):
            return []
        case (true, _):
            presence[place.name] = .inside(since: tst)
            return [PlaceChange(kind: .arrived, place: place.name, tst: tst, quiet: quiet)]
        case (false, .inside):
            presence[place.name] = nil
            return [PlaceChange(kind: .departed, place: place.name, tst: tst, quiet: quiet)]
        case (false, _):
            presence[place.name] = nil
            return []
        }
    }

    /// When the next arrival completes unless a fix says otherwise, epoch seconds.
    func nextDeadline(places: [Place], rules: PlaceRules) -> Double? {
        places.compactMap { place -> Double? in
            guard case .arriving(let since, _) = presence[place.name] else { return nil }
            return Double(since) + rules.dwell(of: place)
        }.min()
    }

    /// The place the member is at, with the time they arrived: of the places they are inside,
    /// the smallest (an office inside a campus is the office).
    func current(in places: [Place]) -> (place: String, since: Int)? {
        var best: (place: Place, since: Int)?
        for place in places {
            guard case .inside(let since) = presence[place.name] else { continue }
            if best.map({ place.radius < $0.place.radius }) ?? true { best = (place, since) }
        }
        return best.map { ($0.place.name, $0.since) }
    }

    /// Forgets the places not in `names` (removed or redefined by a circles-file reload).
    mutating func keep(only names: Set<String>) {
        presence = presence.filter { names.contains($0.key) }
    }
}
