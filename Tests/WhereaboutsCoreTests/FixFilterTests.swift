import Foundation
import Testing
@testable import WhereaboutsCore

struct FixFilterTests {
    static let base = SyntheticTracks.fix(100, east: 0)

    static let cases: [(String, Fix, FixFilter.Reason)] = [
        ("NaN latitude", Fix(time: base.time.addingTimeInterval(1), latitude: .nan, longitude: 0), .invalidCoordinates),
        ("latitude 91", Fix(time: base.time.addingTimeInterval(1), latitude: 91, longitude: 0), .invalidCoordinates),
        ("10 s in the future", SyntheticTracks.fix(110, east: 1), .futureTimestamp),
        ("40 s old", SyntheticTracks.fix(60, east: 1), .tooOld),
        ("accuracy 150 m", SyntheticTracks.fix(101, east: 1, accuracy: 150), .tooInaccurate),
        ("same time", SyntheticTracks.fix(100, east: 1), .notNewer),
        ("2 km in 5 s", SyntheticTracks.fix(105, east: 2_000), .tooFast),
    ]

    @Test("Each filter rejects its case and counts it under its reason", arguments: cases)
    func rejects(_ label: String, _ fix: Fix, _ reason: FixFilter.Reason) {
        var filter = FixFilter()
        let first = filter.check(Self.base, now: Self.base.time)
        #expect(first == nil)
        // "now" is the last fix's time for the age checks, the fix's own time otherwise.
        let now = reason == .futureTimestamp || reason == .tooOld ? Self.base.time : fix.time
        let result = filter.check(fix, now: now)
        #expect(result == reason, "\(label)")
        #expect(filter.rejections[reason] == 1)
        #expect(filter.rejections.total == 1)
        #expect(filter.lastAccepted == Self.base)
    }

    @Test("A good fix passes every filter; switched-off checks pass anything")
    func accepts() {
        var filter = FixFilter()
        let results = [
            filter.accept(Self.base, now: Self.base.time),
            filter.accept(SyntheticTracks.fix(101, east: 20), now: Self.base.time.addingTimeInterval(1)),
        ]
        #expect(results == [true, true])
        var lenient = FixFilter(settings: .init(maxAge: nil, maxAccuracy: nil, maxSpeed: nil, futureTolerance: nil))
        let lenientResults = [
            lenient.accept(SyntheticTracks.fix(0, east: 0, accuracy: 10_000), now: Date()),
            lenient.accept(SyntheticTracks.fix(1, east: 50_000), now: Date()),
        ]
        #expect(lenientResults == [true, true])
        #expect(lenient.accepted == 2)
    }

    @Test("After an accepted outlier, fixes that agree with each other for 30 s win")
    func reanchors() {
        var filter = FixFilter()
        let outlierAccepted = filter.accept(SyntheticTracks.fix(0, east: 5_000), now: SyntheticTracks.start)
        #expect(outlierAccepted)
        var results: [FixFilter.Reason?] = []
        for second in 1...35 {
            let fix = SyntheticTracks.fix(Double(second), east: Double(second) * 10)
            results.append(filter.check(fix, now: fix.time))
        }
        // The run of agreeing fixes starts at second 1; at second 31 it has lasted 30 s.
        #expect(results == Array(repeating: .tooFast, count: 30) + Array(repeating: nil, count: 5))
        #expect(filter.rejections[.tooFast] == 30)
        #expect(filter.reanchored == 1)
    }

    @Test("A spike of 4 fixes that agree with each other is rejected whole; the road goes on")
    func spikeBurst() {
        var filter = FixFilter()
        var accepted: [Int] = []
        for second in 0..<60 {
            // 10 m/s east; seconds 20-23 are thrown 1.5 km north (multipath), and agree.
            let spike = (20...23).contains(second)
            let fix = SyntheticTracks.fix(Double(second), east: Double(second) * 10, north: spike ? 1_500 + Double(second) : 0)
            if filter.accept(fix, now: fix.time) { accepted.append(second) }
        }
        #expect(accepted == Array(0..<20) + Array(24..<60))
        #expect(filter.rejections[.tooFast] == 4)
        #expect(filter.reanchored == 0)
    }

    @Test("A true jump (it stays) is taken after 30 s; out and back within that is a spike")
    func jumpStays() {
        var filter = FixFilter()
        var firstAfterJump: Int?
        for second in 0..<120 {
            // A tunnel: 3 km on at second 40, and the car keeps going from there.
            let east = second < 40 ? Double(second) * 10 : 3_000 + Double(second) * 10
            let fix = SyntheticTracks.fix(Double(second), east: east)
            if filter.accept(fix, now: fix.time), second >= 40, firstAfterJump == nil { firstAfterJump = second }
        }
        #expect(firstAfterJump == 70)
        #expect(filter.reanchored == 1)
    }

    @Test("With a replay clock nothing is too old; with the wall clock an old recording is")
    func clocks() {
        let fix = SyntheticTracks.fix(0, east: 0)
        var replayFilter = FixFilter()
        let replay = ReplayFixClock()
        replay.advance(to: fix.time)
        let replayed = replayFilter.check(fix, clock: replay)
        #expect(replayed == nil)
        var liveFilter = FixFilter()
        let live = liveFilter.check(fix, clock: WallFixClock())
        #expect(live == .tooOld)
    }
}
