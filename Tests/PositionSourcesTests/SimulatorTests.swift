import Foundation
import Testing
import WhereaboutsCore
@testable import PositionSources
import SystemSupport

@Suite("Simulator")
struct SimulatorTests {
    func fixes(_ scenario: SimulationScenario, seed: UInt64 = 7, count: Int = 3_600, outliers: Double = 0.003) -> [Fix] {
        Array(Simulator(options: SimulatorOptions(scenario: scenario, seed: seed, count: count, outlierProbability: outliers)))
    }

    @Test("The same seed gives the same fixes; another seed different ones", arguments: SimulationScenario.allCases)
    func deterministic(scenario: SimulationScenario) {
        let a = fixes(scenario, seed: 42, count: 900)
        #expect(a == fixes(scenario, seed: 42, count: 900))
        #expect(a != fixes(scenario, seed: 43, count: 900))
        #expect(a.count == 900)
    }

    @Test("SplitMix64 produces the reference sequence for seed 0")
    func splitMixReference() {
        // First outputs of SplitMix64 seeded with 0, as published with the algorithm (Vigna's splitmix64.c).
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test("Every fix is valid, one interval apart, and starts where asked", arguments: SimulationScenario.allCases)
    func validAndSpaced(scenario: SimulationScenario) throws {
        let start = Coordinate(latitude: -33.86, longitude: 151.21)
        let options = SimulatorOptions(scenario: scenario, seed: 3, start: start, interval: 2, count: 500)
        let track = Array(Simulator(options: options))
        #expect(track.count == 500)
        #expect(track.allSatisfy { $0.coordinate.isValid && $0.source == .simulator && $0.horizontalAccuracy != nil })
        #expect(zip(track, track.dropFirst()).allSatisfy { $1.time.timeIntervalSince($0.time) == 2 })
        #expect(track[0].time == options.startTime)
        #expect(Geodesy.distance(track[0].coordinate, start) < 30)
    }

    /// Speeds of the fixes (as measured) in the fixes that are moving.
    func movingSpeeds(_ track: [Fix]) -> [Double] {
        track.compactMap(\.speed).filter { $0 > 0.5 }.sorted()
    }

    @Test("Walking, cycling and driving move at their typical speeds and stop now and then")
    func speeds() throws {
        for (scenario, typical) in [(SimulationScenario.walk, 0.9...2.0), (.cycle, 4.0...7.5), (.drive, 9.0...19.0)] {
            let track = fixes(scenario)
            let moving = movingSpeeds(track)
            let median = try #require(moving.isEmpty ? nil : moving[moving.count / 2])
            #expect(typical.contains(median), "\(scenario) median speed \(median)")
            let stopped = track.filter { ($0.speed ?? 0) < 0.3 }.count
            #expect(stopped > 20, "\(scenario) stops: \(stopped) fixes")
            #expect(moving.last! < 35)
        }
    }

    @Test("Standing still jitters within metres of the start, apart from multipath outliers")
    func still() throws {
        let track = fixes(.still, outliers: 0.02)
        let first = track[0].coordinate
        let distances = track.map { Geodesy.distance($0.coordinate, first) }
        let near = distances.filter { $0 < 40 }.count
        let outliers = distances.filter { $0 > 75 }.count
        #expect(near + outliers == track.count, "nothing between jitter and outlier")
        #expect((30...120).contains(outliers), "about 2 % outliers, got \(outliers)")
        #expect(distances.filter { $0 > 1 }.count > track.count / 2, "the position jitters")
        #expect(track.allSatisfy { $0.course == nil })
    }

    @Test("mixed walks, stands and drives")
    func mixed() {
        let track = fixes(.mixed, count: 35 * 60)
        let speeds = track.map { $0.speed ?? 0 }
        #expect(speeds[60..<300].filter { $0 > 0.8 && $0 < 2.2 }.count > 120, "walks first")
        #expect(speeds[400..<800].allSatisfy { $0 < 1 }, "then stands")
        #expect(speeds[1_000..<1_700].filter { $0 > 8 }.count > 200, "then drives")
    }

    @Test("The async source yields the simulation")
    func source() async throws {
        let options = SimulatorOptions(scenario: .cycle, count: 100)
        var fixes: [Fix] = []
        for try await fix in SimulatorSource(options: options, logger: Fixtures.quietLogger) { fixes.append(fix) }
        #expect(fixes == Array(Simulator(options: options)))
    }
}
