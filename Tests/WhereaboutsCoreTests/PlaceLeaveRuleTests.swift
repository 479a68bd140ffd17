import Foundation
import Testing
@testable import WhereaboutsCore

/// The one tracker with both leave settings: the device's (two fixes in a row beyond the edge)
/// and the subscriber's (one), on the same fixes; the clock's arrivals; a device's own
/// transitions; and the JSON of a place, which the circle view and the publisher's store keep.
struct PlaceLeaveRuleTests {
    static let home = Place(name: "Home", lat: 52.6638, lon: -8.6267, radius: 100, dwell: 0)
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A fix `metres` east of Home's centre, `seconds` after the start, accuracy 5 m. With the
    /// default 25 m margin the leave boundary is at 125 m.
    static func fix(east metres: Double, at seconds: Double) -> Fix {
        let point = Geodesy.destination(from: home.centre, bearing: 90, distance: metres)
        return Fix(time: start.addingTimeInterval(seconds), latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5)
    }

    /// Feeds `fixes` one by one; the index of each fix that completed a `leave`.
    static func leaves(_ rules: PlaceRules, _ fixes: [Fix]) -> [Int] {
        var tracker = PlaceTracker(places: [home], rules: rules, inside: ["home"])
        return fixes.enumerated().compactMap { index, fix in
            tracker.observe(fix).contains { $0.event == .leave } ? index : nil
        }
    }

    @Test("One outlier beyond the edge: the subscriber's rule leaves at once, the device's waits for a second fix")
    func bothSettingsOnOneTrack() {
        // Inside, an outlier 300 m out, back inside, then gone for good.
        let track = [Self.fix(east: 10, at: 0), Self.fix(east: 300, at: 1), Self.fix(east: 10, at: 2),
                     Self.fix(east: 300, at: 3), Self.fix(east: 310, at: 4), Self.fix(east: 320, at: 5)]
        // The subscriber leaves at the outlier (and, the place having no dwell, is back at the
        // next fix and leaves again); the device stays through the outlier and leaves once.
        #expect(Self.leaves(.subscriber(), track) == [1, 3])
        #expect(Self.leaves(.device(), track) == [4])
        #expect(PlaceRules.subscriber().fixesToLeave == 1)
        #expect(PlaceRules.device().fixesToLeave == 2)
    }

    @Test("The n-th fix in a row beyond the edge leaves; a fix back inside starts the count again", arguments: [1, 2, 3])
    func fixesInARow(n: Int) {
        let rules = PlaceRules(fixesToLeave: n)
        let beyond = (0..<n).map { Self.fix(east: 200, at: Double($0)) }
        #expect(Self.leaves(rules, beyond) == [n - 1])
        // n - 1 beyond, one back inside, then n - 1 beyond again: never n in a row.
        let interrupted = beyond.dropLast() + [Self.fix(east: 0, at: Double(n))]
            + (0..<(n - 1)).map { Self.fix(east: 200, at: Double(n + 1 + $0)) }
        #expect(Self.leaves(rules, interrupted).isEmpty)
    }

    @Test("Between the radius and the leave boundary nothing counts towards leaving, under either setting")
    func hysteresisUnderBothSettings() {
        for rules in [PlaceRules.subscriber(), PlaceRules.device()] {
            let jitter = (0..<50).map { Self.fix(east: $0.isMultiple(of: 2) ? 105 : 120, at: Double($0)) }
            #expect(Self.leaves(rules, jitter).isEmpty)
        }
    }

    @Test("The clock completes a silent arrival dated at the first fix inside, with no fix; a fix completes it with that fix")
    func arrivalByClockAndByFix() {
        var slow = Self.home
        slow.dwell = 60
        var byClock = PlaceTracker(places: [slow], rules: .subscriber())
        #expect(byClock.observe(Self.fix(east: 0, at: 0)).isEmpty)
        #expect(byClock.nextDeadline == Self.start.addingTimeInterval(60))
        #expect(byClock.advance(to: Self.start.addingTimeInterval(59)).isEmpty)
        let clocked = byClock.advance(to: Self.start.addingTimeInterval(60))
        #expect(clocked == [PlaceTransition(event: .enter, place: slow, time: Self.start)])
        #expect(byClock.current?.place.name == "Home")

        var byFix = PlaceTracker(places: [slow], rules: .device())
        _ = byFix.observe(Self.fix(east: 0, at: 0))
        let fixed = byFix.observe(Self.fix(east: 0, at: 61))
        #expect(fixed.map(\.time) == [Self.start])
        #expect(fixed.first?.fix?.time == Self.start.addingTimeInterval(61))
    }

    @Test("A device's own transition counts at once, also while the device's rule waits for a second fix")
    func ownTransitionWhileLeaving() {
        var tracker = PlaceTracker(places: [Self.home], rules: .device(), inside: ["home"])
        #expect(tracker.observe(Self.fix(east: 300, at: 0)).isEmpty)
        #expect(tracker.inside.map(\.name) == ["Home"], "leaving still counts as inside")
        let left = tracker.apply(.leave, region: "HOME", at: Self.start.addingTimeInterval(1))
        #expect(left.map(\.event) == [.leave])
        #expect(tracker.inside.isEmpty)
        #expect(tracker.apply(.leave, region: "Home", at: Self.start.addingTimeInterval(2)).isEmpty)
        #expect(tracker.apply(.enter, region: "Gym", at: Self.start.addingTimeInterval(3)).isEmpty)
    }

    @Test("A circle's place is the five keys of the circle view; a waypoint adds tst, rid and origin as the store always had")
    func json() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let circlePlace = Place(name: "Home", lat: 52.5, lon: -8.5, radius: 100, dwell: 30)
        #expect(String(decoding: try encoder.encode(circlePlace), as: UTF8.self)
            == #"{"dwell":30,"lat":52.5,"lon":-8.5,"name":"Home","radius":100}"#)
        // A command waypoint as the publisher stored it before places were one type.
        let stored = #"{"lat":1,"lon":2,"name":"Gym","origin":"command","profile":1,"radius":50,"rid":"r1","tst":1700000000}"#
        let waypoint = try JSONDecoder().decode(Place.self, from: Data(stored.utf8))
        #expect(waypoint.origin == .command && waypoint.tst == 1_700_000_000 && waypoint.rid == "r1" && waypoint.profile == .significant)
        #expect(String(decoding: try encoder.encode(waypoint), as: UTF8.self) == stored)
        #expect(try JSONDecoder().decode(Place.self, from: encoder.encode(circlePlace)) == circlePlace)
    }
}
