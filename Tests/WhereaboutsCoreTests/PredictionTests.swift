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

    @Test("With a turn rate the display follows the arc, for at most ms; without one, the straight line")
    func arc() throws {
        // 10 m/s east turning left at 9°/s: after 10 s a quarter circle of radius 10 / (π / 20) m.
        let radius = 10 / (9 * Double.pi / 180)
        let message = LocationMessage(tid: "ab", tst: 1_000, lat: 0, lon: 0, acc: 5, ve: 10, vn: 0, ms: 10, tr: 9)
        let origin = LocalProjection(origin: Coordinate(latitude: 0, longitude: 0))
        for elapsed in [10.0, 30.0] {
            let (east, north) = origin.project(message.displayedPosition(afterSeconds: elapsed))
            #expect(abs(east - radius) < 0.01)
            #expect(abs(north - radius) < 0.01)
        }
        let right = LocationMessage.extrapolatedOffset(east: 10, north: 0, turnRate: -9, seconds: 10)
        #expect(abs(right.east - radius) < 1e-9 && abs(right.north + radius) < 1e-9)
        let straight = LocationMessage.extrapolatedOffset(east: 10, north: 2, turnRate: nil, seconds: 10)
        #expect(straight == (100, 20))
        #expect(LocationMessage.extrapolatedOffset(east: 10, north: 2, turnRate: 0, seconds: 10) == (100, 20))
        // On the wire the field is `tr`, and absent when not set.
        let text = String(decoding: try JSONEncoder().encode(message), as: UTF8.self)
        #expect(text.contains("\"tr\":9"))
        var plain = message
        plain.tr = nil
        #expect(!String(decoding: try JSONEncoder().encode(plain), as: UTF8.self).contains("\"tr\""))
    }
}
