import Foundation
import Testing
@testable import WhereaboutsCore

/// The velocity `bounded`'s first estimator (`VelocityExperts.Estimator.measured`) gives.
struct VelocityExpertsTests {
    /// Two fixes one second apart, 10 m east of each other, in the sent frame (newest first).
    static let points = [
        SentFrame.Point(tau: 0, east: 0, north: 0),
        SentFrame.Point(tau: -1, east: -10, north: 0),
    ]

    static let experts = VelocityExperts(epsilon: 50, maxSilence: 120, maxSpeed: 100)

    static func fix(speed: Double? = nil, course: Double? = nil) -> Fix {
        Fix(time: Date(timeIntervalSince1970: 1_000), latitude: 0, longitude: 0, speed: speed, course: course)
    }

    @Test("Without receiver speed the estimate is the last two fixes' velocity")
    func lastTwoFixes() throws {
        let velocity = try #require(Self.experts.velocity(.measured, points: Self.points, fix: Self.fix()))
        #expect(abs(velocity.east - 10) < 1e-9)
        #expect(abs(velocity.north) < 1e-9)
    }

    @Test("A receiver speed without a course is sent along the last two fixes' heading")
    func speedAlongHeading() throws {
        let velocity = try #require(Self.experts.velocity(.measured, points: Self.points, fix: Self.fix(speed: 8)))
        #expect(abs(velocity.east - 8) < 1e-9)
        #expect(abs(velocity.north) < 1e-9)
    }

    @Test("Speed and course together win over the fixes' heading")
    func speedAndCourse() throws {
        let velocity = try #require(Self.experts.velocity(.measured, points: Self.points, fix: Self.fix(speed: 8, course: 0)))
        #expect(abs(velocity.east) < 1e-9)
        #expect(abs(velocity.north - 8) < 1e-9)
    }

    @Test("A receiver that measures no speed, or a parked receiver's Doppler noise, makes the estimate hold", arguments: [0.0, 0.1, 0.3, 0.49])
    func standingStill(speed: Double) {
        #expect(Self.experts.velocity(.measured, points: Self.points, fix: Self.fix(speed: speed)) == nil)
    }

    @Test("From walking pace on, the receiver's speed and course are sent", arguments: [0.5, 1.4])
    func walkingPace(speed: Double) throws {
        let velocity = try #require(Self.experts.velocity(.measured, points: Self.points, fix: Self.fix(speed: speed, course: 90)))
        #expect(abs(velocity.east - speed) < 1e-9)
    }

    @Test("A measured speed that is not a number is ignored", arguments: [Double.nan, -1])
    func unusableSpeed(speed: Double) throws {
        let velocity = try #require(Self.experts.velocity(.measured, points: Self.points, fix: Self.fix(speed: speed)))
        #expect(abs(velocity.east - 10) < 1e-9)
    }

    @Test("The estimators in use: the receiver's and least squares over 8 s; without a rule, fewer; without the experts, dead reckoning's")
    func estimatorsInUse() {
        #expect(Self.experts.inUse == [.measured, .window(8), .hold, .turning])
        #expect(VelocityExperts(epsilon: 50, maxSilence: 120, maxSpeed: 100, without: [.window8]).inUse == [.measured, .hold, .turning])
        #expect(VelocityExperts(epsilon: 50, maxSilence: 120, maxSpeed: 100, without: [.experts]).inUse == [.lastTwo])
        #expect(VelocityExperts(epsilon: 50, maxSilence: 120, maxSpeed: 100, without: [.measured, .window8, .hold, .turning]).inUse == [.lastTwo])
    }

    @Test("Without the parked rule a parked receiver's Doppler noise is sent as a velocity")
    func withoutParked() throws {
        let experts = VelocityExperts(epsilon: 50, maxSilence: 120, maxSpeed: 100, without: [.parked])
        let velocity = try #require(experts.velocity(.measured, points: Self.points, fix: Self.fix(speed: 0.3)))
        #expect(abs(velocity.east - 0.3) < 1e-9)
    }
}
