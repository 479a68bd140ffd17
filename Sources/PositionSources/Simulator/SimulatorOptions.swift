#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WhereaboutsCore

/// What the simulator simulates. Same options (seed included) give the same fixes, always.
public struct SimulatorOptions: Sendable, Hashable {
    /// What the device does. Default `.walk`.
    public var scenario: SimulationScenario
    /// The random seed. Default 1.
    public var seed: UInt64
    /// Where the device starts. Default Ljubljana (46.0569 N, 14.5058 E).
    public var start: Coordinate
    /// The time of the first fix. Default 2024-01-01T08:00:00Z, so tests are reproducible; the
    /// publisher's `sim:` source passes the current time instead.
    var startTime: Date
    /// Seconds between fixes. Default 1 s.
    public var interval: Double
    /// How many fixes to produce, or `nil` for no end. Default 3,600 (an hour at 1 s).
    public var count: Int?
    /// The probability that a fix is a multipath outlier, thrown 80-400 m off with a plausible
    /// accuracy. Default 0.003 (about one in 330 fixes).
    var outlierProbability: Double

    /// Creates options; every argument has a default.
    public init(
        scenario: SimulationScenario = .walk,
        seed: UInt64 = 1,
        start: Coordinate = Coordinate(latitude: 46.0569, longitude: 14.5058),
        startTime: Date = Date(timeIntervalSince1970: 1_704_096_000),
        interval: Double = 1,
        count: Int? = 3_600,
        outlierProbability: Double = 0.003
    ) {
        self.scenario = scenario
        self.seed = seed
        self.start = start
        self.startTime = startTime
        self.interval = interval
        self.count = count
        self.outlierProbability = outlierProbability
    }
}
