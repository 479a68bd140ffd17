import Foundation
import PositionSources
import Testing
import WhereaboutsCore
@testable import Subscriber

/// The place rules on tracks from the simulator: a member hovering at a place's edge, a drive
/// past a place, and a visit (walk there, stay, drive away). Each runs once with the rules
/// (hysteresis and dwell) and once with a plain geofence, and the event counts are compared.
@Suite("Place tracker")
struct PlaceTrackerTests {
    private static let start = Coordinate(latitude: 52.6638, longitude: -8.6267)

    /// Replays `fixes` through a tracker for `places`: the events decided, and where it ends.
    private static func replay(_ fixes: [Fix], places: [Place], rules: PlaceRules) -> (changes: [PlaceChange], tracker: PlaceTracker) {
        var tracker = PlaceTracker()
        var changes: [PlaceChange] = []
        for fix in fixes {
            changes += tracker.observe(
                tst: Int(fix.time.timeIntervalSince1970), at: fix.coordinate, accuracy: fix.horizontalAccuracy,
                places: places, rules: rules, quiet: false)
        }
        return (changes, tracker)
    }

    private static func simulate(_ scenario: SimulationScenario, seed: UInt64, minutes: Int, interval: Double = 10) -> [Fix] {
        Array(Simulator(options: SimulatorOptions(
            scenario: scenario, seed: seed, start: start, interval: interval,
            count: minutes * 60 / Int(interval), outlierProbability: 0)))
    }

    @Test("Standing still on a place's edge: GPS jitter flaps a plain geofence, the rules arrive once", arguments: [1, 2, 3] as [UInt64])
    func hoverAtTheEdge(seed: UInt64) throws {
        let fixes = Self.simulate(.still, seed: seed, minutes: 120)
        // The member stands exactly on the edge: the centre lies one radius north of them.
        let centre = Geodesy.destination(from: Self.start, bearing: 0, distance: 100)
        let home = Place(name: "Home", lat: centre.latitude, lon: centre.longitude, radius: 100)
        let naive = Self.replay(fixes, places: [home], rules: .naive)
        let ruled = Self.replay(fixes, places: [home], rules: PlaceRules())
        var dwellOnly = PlaceRules()
        dwellOnly.hysteresis = false
        var bandOnly = PlaceRules()
        bandOnly.waitsForDwell = false
        let withDwell = Self.replay(fixes, places: [home], rules: dwellOnly).changes.count
        let withBand = Self.replay(fixes, places: [home], rules: bandOnly).changes.count
        print("hover seed \(seed): \(fixes.count) fixes; events: plain geofence \(naive.changes.count), dwell only \(withDwell), hysteresis only \(withBand), both \(ruled.changes.count)")
        #expect(naive.changes.count >= 10)
        #expect(withDwell < naive.changes.count)
        #expect(withBand < naive.changes.count)
        #expect(ruled.changes.map(\.kind) == [.arrived])
        #expect(ruled.tracker.current(in: [home])?.place == "Home")
    }

    @Test("Driving past a place is no visit: the dwell time keeps it quiet", arguments: [1, 2, 3] as [UInt64])
    func driveBy(seed: UInt64) throws {
        let fixes = Self.simulate(.drive, seed: seed, minutes: 10, interval: 1)
        // A place on the route: centred on the fix two minutes in, while the car is moving.
        let moving = try #require(fixes.dropFirst(120).first { ($0.speed ?? 0) > 8 })
        let shop = Place(name: "Shop", lat: moving.latitude, lon: moving.longitude, radius: 80)
        let naive = Self.replay(fixes, places: [shop], rules: .naive)
        let ruled = Self.replay(fixes, places: [shop], rules: PlaceRules())
        print("drive-by seed \(seed): plain geofence \(naive.changes.count) events, rules \(ruled.changes.count)")
        #expect(naive.changes.count >= 2)
        #expect(ruled.changes.isEmpty)
    }

    @Test("A visit: walk there, stay ten minutes, leave: one arrival and one departure", arguments: [1, 2, 3] as [UInt64])
    func visit(seed: UInt64) throws {
        // `mixed` walks 5 min, stands 10 min, drives 15 min: the place is where it stands.
        let fixes = Self.simulate(.mixed, seed: seed, minutes: 30, interval: 5)
        let standing = fixes[Int(10 * 60 / 5)]
        let cafe = Place(name: "Café", lat: standing.latitude, lon: standing.longitude, radius: 40)
        let naive = Self.replay(fixes, places: [cafe], rules: .naive)
        let ruled = Self.replay(fixes, places: [cafe], rules: PlaceRules())
        print("visit seed \(seed): plain geofence \(naive.changes.count) events, rules \(ruled.changes.count)")
        #expect(ruled.changes.map(\.kind) == [.arrived, .departed])
        let startTime = Int(fixes[0].time.timeIntervalSince1970)
        let arrived = try #require(ruled.changes.first).tst - startTime
        let departed = try #require(ruled.changes.last).tst - startTime
        #expect((200...330).contains(arrived), "arrived \(arrived) s in; the walk ends at 300 s")
        #expect((900...1_000).contains(departed), "left \(departed) s in; the drive starts at 900 s")
        #expect(naive.changes.count >= ruled.changes.count)
    }

    @Test("A member who arrives and falls silent still arrives when the dwell time has passed")
    func arrivalBySilence() {
        let home = Place(name: "Home", lat: 52.0, lon: -8.6, radius: 50)
        var tracker = PlaceTracker()
        let rules = PlaceRules()
        #expect(tracker.observe(tst: 1_000, at: home.centre, accuracy: 5, places: [home], rules: rules, quiet: false).isEmpty)
        #expect(tracker.nextDeadline(places: [home], rules: rules) == 1_060)
        #expect(tracker.advance(to: 1_059, places: [home], rules: rules).isEmpty)
        let changes = tracker.advance(to: 1_060, places: [home], rules: rules)
        #expect(changes == [PlaceChange(kind: .arrived, place: "Home", tst: 1_000, quiet: false)])
        #expect(tracker.current(in: [home])?.place == "Home")
        #expect(tracker.current(in: [home])?.since == 1_000)
        #expect(tracker.nextDeadline(places: [home], rules: rules) == nil)
    }

    @Test("Leaving needs a fix beyond radius plus the larger of its accuracy and the margin")
    func hysteresisBand() {
        let home = Place(name: "Home", lat: 52.0, lon: -8.6, radius: 50, dwell: 0)
        let rules = PlaceRules(margin: 25)
        var tracker = PlaceTracker()
        _ = tracker.observe(tst: 1, at: home.centre, accuracy: 5, places: [home], rules: rules, quiet: false)
        let at = { (metres: Double) in Geodesy.destination(from: home.centre, bearing: 90, distance: metres) }
        #expect(tracker.observe(tst: 2, at: at(70), accuracy: 5, places: [home], rules: rules, quiet: false).isEmpty)
        // 90 m is beyond radius + margin (75 m) but within radius + accuracy (50 + 60).
        #expect(tracker.observe(tst: 3, at: at(90), accuracy: 60, places: [home], rules: rules, quiet: false).isEmpty)
        let left = tracker.observe(tst: 4, at: at(90), accuracy: 10, places: [home], rules: rules, quiet: false)
        #expect(left.map(\.kind) == [.departed])
        #expect(left.first?.tst == 4)
    }

    @Test("A device's own transition for a region named like the place counts at once; other regions do not")
    func deviceTransitions() {
        let home = Place(name: "Home", lat: 52.0, lon: -8.6, radius: 50)
        var tracker = PlaceTracker()
        #expect(tracker.transition(entered: true, region: "Gym", tst: 10, places: [home], quiet: false).isEmpty)
        #expect(tracker.transition(entered: true, region: "home", tst: 10, places: [home], quiet: false).map(\.kind) == [.arrived])
        #expect(tracker.transition(entered: true, region: "Home", tst: 11, places: [home], quiet: false).isEmpty)
        // Older news than what was applied changes nothing.
        #expect(tracker.transition(entered: false, region: "Home", tst: 5, places: [home], quiet: false).isEmpty)
        #expect(tracker.transition(entered: false, region: "Home", tst: 20, places: [home], quiet: false).map(\.kind) == [.departed])
        #expect(tracker.current(in: [home]) == nil)
    }

    @Test("Of two places a member is inside, the smaller one is where they are")
    func nestedPlaces() {
        let campus = Place(name: "Campus", lat: 52.0, lon: -8.6, radius: 500, dwell: 0)
        let office = Place(name: "Office", lat: 52.0, lon: -8.6, radius: 30, dwell: 0)
        var tracker = PlaceTracker()
        let changes = tracker.observe(tst: 1, at: office.centre, accuracy: 5, places: [campus, office], rules: PlaceRules(), quiet: false)
        #expect(Set(changes.map(\.place)) == ["Campus", "Office"])
        #expect(tracker.current(in: [campus, office])?.place == "Office")
    }
}
