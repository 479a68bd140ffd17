import Foundation
import Testing
@testable import WhereaboutsCore

/// How `bounded` picks the velocity it sends (`VelocityFit`).
struct VelocityFitTests {
    /// The newest fix's position as sent.
    static func origin(of entry: FixHistory.Entry) -> Coordinate {
        Coordinate(latitude: LocationMessage.roundCoordinate(entry.latitude), longitude: LocationMessage.roundCoordinate(entry.longitude))
    }

    /// What `bounded` would send for the newest fix of `history`, with a 5 m tolerance.
    static func choose(from history: FixHistory, looseTolerance: Double) -> Velocity? {
        let newest = history[0]
        let points = VelocityFit.recentPoints(history: history, origin: origin(of: newest), tst: newest.time.rounded(.down))
        return VelocityFit.choose(points: points, tolerance: 5, looseTolerance: looseTolerance, stationarySpeed: 0.2, measured: nil)
    }

    @Test("A longer span within the tolerance beats a longer span within the loose band")
    func tightFirst() throws {
        // A straight eastward drive at 10 m/s, one fix per second for 20 s, then a turn north
        // for the last 3 s: the newest velocities fit the turn within 5 m for 3 s, while the long
        // fits explain 20 s within a 100 m band but not even the turn within 5 m.
        var history = FixHistory(capacity: 32)
        for second in 0...20 { history.append(SyntheticTracks.fix(Double(second), east: Double(second) * 10)) }
        for second in 1...3 { history.append(SyntheticTracks.fix(Double(20 + second), east: 200, north: Double(second) * 10)) }
        let chosen = try #require(Self.choose(from: history, looseTolerance: 100))
        #expect(abs(chosen.north - 10) < 0.5)
        #expect(abs(chosen.east) < 0.5)
    }

    @Test("Among velocities that explain the newest fixes equally well, the one that fits further back wins")
    func looseTieBreak() throws {
        // Fixes 10 s apart: a straight eastward drive at 10 m/s for 60 s, except that the fixes
        // 10 s and 20 s before the newest are 4 m north and 8 m south of the line. Within the
        // 5 m tolerance, the last-two-fix velocity and the long fits all explain the past 10 s
        // and no more (a tie); within the 15 m band the long fits explain all 60 s, the last-two
        // velocity (tilted 0.4 m/s off the line by the offset) only 10 s.
        var history = FixHistory(capacity: 16)
        for step in 0...6 {
            let seconds = Double(step) * 10
            history.append(SyntheticTracks.fix(seconds, east: seconds * 10, north: step == 5 ? 4 : step == 4 ? -8 : 0))
        }
        let chosen = try #require(Self.choose(from: history, looseTolerance: 15))
        #expect(abs(chosen.east - 10) < 0.3)
        #expect(abs(chosen.north) < 0.3)
        // Without the loose tie-break the first candidate (the last-two-fix velocity, which
        // carries the 4 m offset as 0.4 m/s across the line) would have won.
        let newest = history[0]
        let lastTwo = try #require(VelocityFit.candidates(points: VelocityFit.recentPoints(history: history, origin: Self.origin(of: newest), tst: newest.time.rounded(.down))).first)
        #expect(abs(lastTwo.north) > 0.3)
    }
}
