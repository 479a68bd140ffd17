import Foundation
import PositionSources
import Testing
@testable import WhereaboutsCore
@testable import Subscriber

/// The subscriber's place rules (``PlaceOccupancy`` over the shared ``PlaceTracker``, one fix
/// beyond the edge to leave) on tracks from the simulator: a member hovering at a place's edge, a
/// drive past a place, and a visit (walk there, stay, drive away). Each runs once with the rules
/// (hysteresis and dwell) and once with a plain geofence, and the event counts are compared.
@Suite("Place tracker")
struct PlaceTrackerTests {
    private static let start = Coordinate(latitude: 52.6638, longitude: -8.6267)
    private static let member = MemberID(user: "alice", device: "phone")

    /// What a replay decided, and where it ends.
    private struct Replay {
        var changes: [PlaceTransition] = []
        var occupancy = PlaceOccupancy()
        var circle: Circle

        /// The place the member is at when the replay ends.
        var current: (place: String, since: Int)? { occupancy.current(of: PlaceTrackerTests.member, in: circle) }

        /// Applies one fix as the store does.
        mutating func observe(tst: Int, at position: Coordinate, accuracy: Double?, rules: PlaceRules) -> [PlaceTransition] {
            let update = occupancy.observe(
                PlaceTrackerTests.member, in: [circle], rules: rules, tst: tst, at: position, accuracy: accuracy, replayed: false)
            let decided = update.transitions.flatMap(\.transitions)
            changes += decided
            return decided
        }
    }

    private static func circle(_ places: [Place]) -> Circle {
        Circle(id: "c", name: "C", members: [Member(user: member.user, device: member.device)], places: places)
    }

    /// Replays `fixes` through the subscriber's place bookkeeping for one circle with `places`.
    private static func replay(_ fixes: [Fix], places: [Place], rules: PlaceRules) -> Replay {
        var replay = Replay(circle: circle(places))
        for fix in fixes {
            _ = replay.observe(tst: Int(fix.time.timeIntervalSince1970), at: fix.coordinate, accuracy: fix.horizontalAccuracy, rules: rules)
        }
        return replay
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
        let ruled = Self.replay(fixes, places: [home], rules: .subscriber())
        var dwellOnly = PlaceRules.subscriber()
        dwellOnly.hysteresis = false
        var bandOnly = PlaceRules.subscriber()
        bandOnly.waitsForDwell = false
        let withDwell = Self.replay(fixes, places: [home], rules: dwellOnly).changes.count
        let withBand = Self.replay(fixes, places: [home], rules: bandOnly).changes.count
        print("hover seed \(seed): \(fixes.count) fixes; events: plain geofence \(naive.changes.count), dwell only \(withDwell), hysteresis only \(withBand), both \(ruled.changes.count)")
        #expect(naive.changes.count >= 10)
        #expect(withDwell < naive.changes.count)
        #expect(withBand < naive.changes.count)
        #expect(ruled.changes.map(\.event) == [.enter])
        #expect(ruled.current?.place == "Home")
    }

    @Test("Driving past a place is no visit: the dwell time keeps it quiet", arguments: [1, 2, 3] as [UInt64])
    func driveBy(seed: UInt64) throws {
        let fixes = Self.simulate(.drive, seed: seed, minutes: 10, interval: 1)
        // A place on the route: centred on the fix two minutes in, while the car is moving.
        let moving = try #require(fixes.dropFirst(120).first { ($0.speed ?? 0) > 8 })
        let shop = Place(name: "Shop", lat: moving.latitude, lon: moving.longitude, radius: 80)
        let naive = Self.replay(fixes, places: [shop], rules: .naive)
        let ruled = Self.replay(fixes, places: [shop], rules: .subscriber())
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
        let ruled = Self.replay(fixes, places: [cafe], rules: .subscriber())
        print("visit seed \(seed): plain geofence \(naive.changes.count) events, rules \(ruled.changes.count)")
        #expect(ruled.changes.map(\.event) == [.enter, .leave])
        let startTime = Int(fixes[0].time.timeIntervalSince1970)
        let arrived = Int(try #require(ruled.changes.first).time.timeIntervalSince1970) - startTime
        let departed = Int(try #require(ruled.changes.last).time.timeIntervalSince1970) - startTime
        #expect((200...330).contains(arrived), "arrived \(arrived) s in; the walk ends at 300 s")
        #expect((900...1_000).contains(departed), "left \(departed) s in; the drive starts at 900 s")
        #expect(naive.changes.count >= ruled.changes.count)
    }

    @Test("A member who arrives and falls silent still arrives when the dwell time has passed")
    func arrivalBySilence() {
        let home = Place(name: "Home", lat: 52.0, lon: -8.6, radius: 50)
        var replay = Replay(circle: Self.circle([home]))
        let rules = PlaceRules.subscriber()
        #expect(replay.observe(tst: 1_000, at: home.centre, accuracy: 5, rules: rules).isEmpty)
        #expect(replay.occupancy.advance(to: 1_059).next == 1_060)
        let done = replay.occupancy.advance(to: 1_060)
        #expect(done.transitions.flatMap(\.transitions) == [PlaceTransition(event: .enter, place: home, time: Date(timeIntervalSince1970: 1_000))])
        #expect(replay.current?.place == "Home")
        #expect(replay.current?.since == 1_000)
        #expect(done.next == nil)
    }

    @Test("Leaving needs a fix beyond radius plus the larger of its accuracy and the margin")
    func hysteresisBand() {
        let home = Place(name: "Home", lat: 52.0, lon: -8.6, radius: 50, dwell: 0)
        let rules = PlaceRules.subscriber(margin: 25)
        var replay = Replay(circle: Self.circle([home]))
        _ = replay.observe(tst: 1, at: home.centre, accuracy: 5, rules: rules)
        let at = { (metres: Double) in Geodesy.destination(from: home.centre, bearing: 90, distance: metres) }
        #expect(replay.observe(tst: 2, at: at(70), accuracy: 5, rules: rules).isEmpty)
        // 90 m is beyond radius + margin (75 m) but within radius + accuracy (50 + 60).
        #expect(replay.observe(tst: 3, at: at(90), accuracy: 60, rules: rules).isEmpty)
        let left = replay.observe(tst: 4, at: at(90), accuracy: 10, rules: rules)
        #expect(left.map(\.event) == [.leave])
        #expect(left.first?.time == Date(timeIntervalSince1970: 4))
    }

    @Test("A device's own transition for a region named like the place counts at once; other regions do not")
    func deviceTransitions() {
        let home = Place(name: "Home", lat: 52.0, lon: -8.6, radius: 50)
        var occupancy = PlaceOccupancy()
        let circle = Self.circle([home])
        func apply(_ event: String, _ region: String, _ tst: Int) -> [PlaceTransition.Event] {
            occupancy.apply(Self.member, in: [circle], rules: .subscriber(), event: event, region: region, tst: tst, replayed: false)
                .transitions.flatMap(\.transitions).map(\.event)
        }
        #expect(apply("enter", "Gym", 10).isEmpty)
        #expect(apply("enter", "home", 10) == [.enter])
        #expect(apply("enter", "Home", 11).isEmpty)
        // Older news than what was applied changes nothing.
        #expect(apply("leave", "Home", 5).isEmpty)
        #expect(apply("leave", "Home", 20) == [.leave])
        #expect(occupancy.current(of: Self.member, in: circle) == nil)
    }

    @Test("Of two places a member is inside, the smaller one is where they are")
    func nestedPlaces() {
        let campus = Place(name: "Campus", lat: 52.0, lon: -8.6, radius: 500, dwell: 0)
        let office = Place(name: "Office", lat: 52.0, lon: -8.6, radius: 30, dwell: 0)
        var replay = Replay(circle: Self.circle([campus, office]))
        let changes = replay.observe(tst: 1, at: office.centre, accuracy: 5, rules: .subscriber())
        #expect(Set(changes.map(\.place.name)) == ["Campus", "Office"])
        #expect(replay.current?.place == "Office")
    }
}
