import Foundation
import Testing
import WhereaboutsCore

struct PredictionTests {
    let fix = Fix(time: Date(timeIntervalSince1970: 1_700_000_000.7), latitude: 52.123_456_78, longitude: -8.6, horizontalAccuracy: 4.2, speed: 10, course: 90)

    @Test("Wire rounding: 6 decimals, whole seconds down, accuracy up and never 0, km/h")
    func rounding() {
        let message = LocationMessage(report: Report(fix: fix, trigger: .moving, velocity: Velocity(east: 10.004, north: 0)), tid: "ab", mode: .active, maxSilence: 30)
        #expect(message.tst == 1_700_000_000)
        #expect(message.lat == 52.123_457)
        #expect(message.acc == 5)
        #expect(message.vel == 36)
        #expect(message.ve == 10.0)
        #expect(message.ms == 30)
        let noAccuracy = LocationMessage(report: Report(fix: Fix(time: fix.time, latitude: 1, longitude: 1), trigger: .firstPublish), tid: "ab")
        #expect(noAccuracy.acc > 0)
        #expect(noAccuracy.ve == nil && noAccuracy.ms == nil)
    }

    @Test("Prediction extrapolates from the wire values and stops at ms")
    func prediction() {
        let message = LocationMessage(report: Report(fix: fix, trigger: .moving, velocity: Velocity(east: 10, north: 0)), tid: "ab", maxSilence: 30)
        let start = message.coordinate
        let after10 = message.displayedPosition(afterSeconds: 10)
        #expect(abs(Geodesy.distance(start, after10) - 100) < 0.1)
        #expect(abs(Geodesy.bearing(from: start, to: after10) - 90) < 0.1)
        let after100 = message.displayedPosition(afterSeconds: 100)
        #expect(abs(Geodesy.distance(start, after100) - 300) < 0.3)
        #expect(message.displayedPosition(afterSeconds: -5) == start)
        let hold = LocationMessage(report: Report(fix: fix, trigger: .moving), tid: "ab")
        #expect(hold.displayedPosition(afterSeconds: 50) == hold.coordinate)
    }
}
