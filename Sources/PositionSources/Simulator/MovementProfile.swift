/// How one kind of movement behaves; the numbers are typical, not measured from one device.
struct MovementProfile {
    /// Cruising speed and its spread between stretches, m/s.
    var speed: Double
    var speedSpread: Double
    /// Largest acceleration and braking, m/s².
    var acceleration: Double
    /// Largest turn rate, degrees per second.
    var turnRate: Double
    /// Seconds between turns, and the largest turn in degrees.
    var turnEvery: ClosedRange<Double>
    var largestTurn: Double
    /// Seconds of moving between stops, and how long a stop lasts.
    var stopEvery: ClosedRange<Double>
    var stopFor: ClosedRange<Double>
    /// One-sigma horizontal position noise, metres.
    var noise: Double

    static func of(_ activity: SimulationScenario) -> MovementProfile {
        switch activity {
        case .walk, .mixed:
            MovementProfile(speed: 1.4, speedSpread: 0.2, acceleration: 0.5, turnRate: 45, turnEvery: 30...120,
                            largestTurn: 90, stopEvery: 180...480, stopFor: 20...120, noise: 4)
        case .cycle:
            MovementProfile(speed: 5.5, speedSpread: 1.0, acceleration: 1.0, turnRate: 30, turnEvery: 60...200,
                            largestTurn: 90, stopEvery: 120...360, stopFor: 10...45, noise: 3)
        case .drive, .spikes:
            MovementProfile(speed: 14, speedSpread: 4, acceleration: 2.0, turnRate: 15, turnEvery: 30...120,
                            largestTurn: 90, stopEvery: 60...240, stopFor: 20...90, noise: 3)
        case .still:
            MovementProfile(speed: 0, speedSpread: 0, acceleration: 1, turnRate: 0, turnEvery: 600...600,
                            largestTurn: 0, stopEvery: 3_600...3_600, stopFor: 3_600...3_600, noise: 5)
        }
    }
}
