import Foundation
import Testing
@testable import WhereaboutsCore

/// The tracker under the device's rules (two fixes beyond the edge to leave), pure logic: hysteresis at the edge, dwell before entering, state kept
/// across a reload and a restart, and the profile each transition asks for.
struct DevicePlaceTrackerTests {
    static let home = Place(name: "Home", lat: 52.6638, lon: -8.6267, radius: 100, profile: .significant, profileOnLeave: .active)
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A fix `metres` east of Home's centre, `seconds` after the start, with accuracy `acc`.
    static func fix(east metres: Double, at seconds: Double, acc: Double = 5) -> Fix {
        let point = Geodesy.destination(from: home.centre, bearing: 90, distance: metres)
        return Fix(time: start.addingTimeInterval(seconds), latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: acc)
    }

    func run(_ presence: inout PlaceTracker, _ fixes: [Fix]) -> [PlaceTransition] {
        fixes.flatMap { presence.observe( $0) }
    }

    @Test("Enter only after the dwell, dated at the fix that completed it")
    func dwell() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(margin: 25, defaultDwell: 60))
        let inside = stride(from: 0.0, through: 50, by: 10).map { Self.fix(east: 20, at: $0) }
        #expect(run(&presence, inside).isEmpty)
        #expect(presence.inside.isEmpty)
        let transitions = presence.observe( Self.fix(east: 20, at: 60))
        #expect(transitions.map(\.event) == [.enter])
        #expect(transitions.first?.fix?.time == Self.start.addingTimeInterval(60))
        #expect(presence.inside.map(\.name) == ["Home"])
    }

    @Test("Passing through faster than the dwell enters nothing")
    func passThrough() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(margin: 25, defaultDwell: 60))
        let drive = stride(from: -300.0, through: 300, by: 20).enumerated().map { Self.fix(east: $1, at: Double($0) * 2) }
        #expect(run(&presence, drive).isEmpty)
    }

    @Test("Jitter between the radius and the leave boundary never flaps")
    func hysteresis() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(margin: 25, defaultDwell: 0))
        #expect(presence.observe( Self.fix(east: 90, at: 0)).map(\.event) == [.enter])
        // 100 m radius, 25 m margin, 10 m accuracy: 95 to 124 m changes nothing, 200 times.
        let jitter = (1...200).map { Self.fix(east: $0.isMultiple(of: 2) ? 95 : 124, at: Double($0), acc: 10) }
        #expect(run(&presence, jitter).isEmpty)
        #expect(presence.observe( Self.fix(east: 126, at: 201, acc: 10)).isEmpty, "one fix beyond is not enough")
        #expect(presence.observe( Self.fix(east: 127, at: 202, acc: 10)).map(\.event) == [.leave])
    }

    @Test("A single outlier beyond the boundary does not leave; two fixes in a row do")
    func outlier() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(margin: 25, defaultDwell: 0), inside: ["home"])
        #expect(presence.observe( Self.fix(east: 189, at: 0, acc: 18.9)).isEmpty)
        #expect(presence.inside.map(\.name) == ["Home"])
        #expect(presence.observe( Self.fix(east: 10, at: 1)).isEmpty)
        #expect(presence.observe( Self.fix(east: 300, at: 2)).isEmpty)
        let left = presence.observe( Self.fix(east: 310, at: 3))
        #expect(left.map(\.event) == [.leave])
        #expect(left.first?.fix?.time == Self.start.addingTimeInterval(3))
        #expect(presence.inside.isEmpty)
    }

    @Test("A poor fix must be beyond radius plus its accuracy to leave")
    func accuracyWidensTheBoundary() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(margin: 25, defaultDwell: 0), inside: ["home"])
        #expect(presence.observe( Self.fix(east: 180, at: 0, acc: 90)).isEmpty)  // 180 < 100 + 90
        #expect(presence.observe( Self.fix(east: 195, at: 1, acc: 90)).isEmpty)
        #expect(presence.observe( Self.fix(east: 196, at: 2, acc: 90)).map(\.event) == [.leave])
    }

    @Test("Leaving during the dwell cancels the arrival; coming back starts it again")
    func arrivalCancelled() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(margin: 25, defaultDwell: 30))
        #expect(run(&presence, [Self.fix(east: 10, at: 0), Self.fix(east: 10, at: 20), Self.fix(east: 300, at: 25)]).isEmpty)
        #expect(run(&presence, [Self.fix(east: 10, at: 40), Self.fix(east: 10, at: 65)]).isEmpty)
        #expect(presence.observe( Self.fix(east: 10, at: 70)).map(\.event) == [.enter])
    }

    @Test("A place's own dwell wins over the rules' default")
    func perPlaceDwell() {
        var quick = Self.home
        quick.dwell = 5
        var presence = PlaceTracker(places: [quick], rules: PlaceRules.device(margin: 25, defaultDwell: 600))
        #expect(run(&presence, [Self.fix(east: 0, at: 0), Self.fix(east: 0, at: 5)]).map(\.event) == [.enter])
    }

    @Test("Inside state given at start (a restart) sends no second enter; a reload keeps unchanged places")
    func restartAndReload() {
        var presence = PlaceTracker(places: [Self.home], rules: PlaceRules.device(defaultDwell: 0), inside: ["home"])
        #expect(presence.observe( Self.fix(east: 0, at: 0)).isEmpty)
        let work = Place(name: "Work", lat: 52.67, lon: -8.61, radius: 150)
        presence.replacePlaces([Self.home, work])
        #expect(presence.inside.map(\.name) == ["Home"])
        var moved = Self.home
        moved.radius = 300
        presence.replacePlaces([moved, work])
        #expect(presence.inside.isEmpty, "a changed place starts outside")
    }

    @Test("Leaves come before enters from the same fix")
    func order() {
        let next = Place(name: "Next door", lat: 52.6638, lon: -8.6240, radius: 80)
        var presence = PlaceTracker(places: [next, Self.home], rules: PlaceRules.device(margin: 10, defaultDwell: 0), inside: ["home"])
        let first = presence.observe( Fix(time: Self.start, latitude: 52.6638, longitude: -8.6240, horizontalAccuracy: 5))
        #expect(first.map { "\($0.event.rawValue) \($0.place.name)" } == ["enter Next door"])
        var fresh = PlaceTracker(places: [next, Self.home], rules: PlaceRules.device(margin: 10, defaultDwell: 0), inside: ["home"])
        _ = fresh.observe( Fix(time: Self.start, latitude: 52.6638, longitude: -8.6300, horizontalAccuracy: 5))  // west, beyond
        let transitions = fresh.observe( Fix(time: Self.start.addingTimeInterval(1), latitude: 52.6638, longitude: -8.6240, horizontalAccuracy: 5))
        #expect(transitions.map { "\($0.event.rawValue) \($0.place.name)" } == ["leave Home", "enter Next door"])
    }

    @Test("Each transition asks for the place's profile: inside on enter, after leaving on leave")
    func profiles() {
        let fix = Self.fix(east: 0, at: 0)
        #expect(PlaceTransition(event: .enter, place: Self.home, time: fix.time, fix: fix).requestedProfile == .significant)
        #expect(PlaceTransition(event: .leave, place: Self.home, time: fix.time, fix: fix).requestedProfile == .active)
        let plain = Place(name: "Shop", lat: 0, lon: 0, radius: 10)
        #expect(PlaceTransition(event: .enter, place: plain, time: fix.time, fix: fix).requestedProfile == nil)
    }

    @Test("A region id is derived stably from name and tst when none was given")
    func derivedRID() {
        let a = Place(name: "Home", lat: 1, lon: 2, radius: 3, waypoint: Place.Waypoint(tst: 1_700_000_000))
        let b = Place(name: "home", lat: 5, lon: 6, radius: 7, waypoint: Place.Waypoint(tst: 1_700_000_000))
        #expect(a.rid == b.rid)
        #expect(a.rid.count == 8)
        #expect(a.rid != Place(name: "Home", lat: 1, lon: 2, radius: 3, waypoint: Place.Waypoint(tst: 1_700_000_001)).rid)
        #expect(Place(name: "Home", lat: 1, lon: 2, radius: 3, waypoint: Place.Waypoint(rid: "r1")).rid == "r1")
    }
}
