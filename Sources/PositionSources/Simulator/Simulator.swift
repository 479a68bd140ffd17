#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import WhereaboutsCore
import SystemSupport

/// A deterministic generator of realistic fixes: a device moves (or stands) on a local plane, and
/// each fix reports its true position plus GPS-like errors.
///
/// - Movement: cruise at the scenario's speed (varied per stretch), accelerate and brake at a
///   bounded rate, turn at corners at a bounded turn rate, stop for a while now and then.
/// - Errors: position noise that wanders slowly (first-order autoregressive, 20 s correlation
///   time) as real GPS error does; speed noise of 0.2 m/s; course only when moving faster than
///   0.5 m/s; rare multipath outliers 80-400 m off with a plausible accuracy.
/// - `mixed` cycles through walk (5 min), still (10 min), drive (15 min), walk (5 min).
/// - `spikes` adds seeded receiver faults to `drive` (see ``SimulationScenario/spikes``);
///   ``lastFixIsSpike`` tells which fixes are spikes, so evaluations can check that none got
///   through.
public struct Simulator: Sequence, IteratorProtocol, Sendable {
    /// The options the simulation runs with.
    public let options: SimulatorOptions
    private var random: SplitMix64
    private let projection: LocalProjection
    private var index = 0
    private var elapsed = 0.0
    private var east = 0.0
    private var north = 0.0
    private var speed = 0.0
    private var heading: Double
    private var targetSpeed = 0.0
    private var targetHeading: Double
    private var nextTurn = 0.0
    private var movingUntil = 0.0
    private var stoppedUntil = 0.0
    private var activity: SimulationScenario
    private var noiseEast = 0.0
    private var noiseNorth = 0.0
    private var faults = ReceiverFaults()

    /// Whether the fix last returned by ``next()`` is a spike (scenario `spikes` only): ground
    /// truth for evaluations of the rejection filters.
    private(set) var lastFixIsSpike = false

    /// The correlation time of the position noise, seconds.
    private static let noiseCorrelationTime = 20.0
    /// The `mixed` scenario's plan: activity and minutes, repeated.
    private static let mixedPlan: [(SimulationScenario, Double)] = [(.walk, 5), (.still, 10), (.drive, 15), (.walk, 5)]

    /// Creates a simulation; iterate it to get its fixes.
    public init(options: SimulatorOptions = SimulatorOptions()) {
        self.options = options
        random = SplitMix64(seed: options.seed)
        projection = LocalProjection(origin: options.start)
        heading = random.uniform(0...360)
        targetHeading = heading
        activity = options.scenario == .mixed ? .walk : options.scenario
        let profile = MovementProfile.of(activity)
        noiseEast = random.normal(deviation: profile.noise)
        noiseNorth = random.normal(deviation: profile.noise)
        startStretch(profile)
        if options.scenario == .spikes { faults.schedule(after: 0, random: &random) }
    }

    /// The next fix, or `nil` after ``SimulatorOptions/count`` fixes.
    public mutating func next() -> Fix? {
        if let count = options.count, index >= count { return nil }
        if index > 0 { advance(by: options.interval) }
        index += 1
        return measure()
    }

    // MARK: - Movement

    private mutating func advance(by dt: Double) {
        elapsed += dt
        if options.scenario == .mixed { switchActivityIfDue() }
        let profile = MovementProfile.of(activity)
        if elapsed >= movingUntil, elapsed >= stoppedUntil, targetSpeed > 0 {
            targetSpeed = 0
            stoppedUntil = elapsed + random.uniform(profile.stopFor)
        } else if targetSpeed == 0, elapsed >= stoppedUntil, profile.speed > 0 {
            startStretch(profile)
        }
        if elapsed >= nextTurn, speed > 0.3 {
            targetHeading = heading + random.uniform(-profile.largestTurn...profile.largestTurn)
            nextTurn = elapsed + random.uniform(profile.turnEvery)
        }
        let dv = targetSpeed - speed
        speed += Swift.max(-profile.acceleration * dt, Swift.min(profile.acceleration * dt, dv))
        var dh = (targetHeading - heading).truncatingRemainder(dividingBy: 360)
        if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        heading += Swift.max(-profile.turnRate * dt, Swift.min(profile.turnRate * dt, dh))
        heading = (heading.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
        let θ = heading * .pi / 180
        east += speed * dt * sin(θ)
        north += speed * dt * cos(θ)
        let ρ = exp(-dt / Self.noiseCorrelationTime)
        let innovation = profile.noise * (1 - ρ * ρ).squareRoot()
        noiseEast = ρ * noiseEast + random.normal(deviation: innovation)
        noiseNorth = ρ * noiseNorth + random.normal(deviation: innovation)
    }

    private mutating func startStretch(_ profile: MovementProfile) {
        guard profile.speed > 0 else {
            targetSpeed = 0
            stoppedUntil = .infinity
            return
        }
        targetSpeed = Swift.max(0.5, random.normal(mean: profile.speed, deviation: profile.speedSpread))
        movingUntil = elapsed + random.uniform(profile.stopEvery)
        nextTurn = elapsed + random.uniform(profile.turnEvery)
    }

    private mutating func switchActivityIfDue() {
        let cycle = Self.mixedPlan.reduce(0) { $0 + $1.1 } * 60
        var t = elapsed.truncatingRemainder(dividingBy: cycle)
        var planned = Self.mixedPlan[0].0
        for (activity, minutes) in Self.mixedPlan {
            planned = activity
            if t < minutes * 60 { break }
            t -= minutes * 60
        }
        guard planned != activity else { return }
        activity = planned
        stoppedUntil = 0
        movingUntil = 0
        startStretch(MovementProfile.of(activity))
    }

    // MARK: - Measurement

    private mutating func measure() -> Fix {
        let profile = MovementProfile.of(activity)
        var e = east + noiseEast
        var n = north + noiseNorth
        var accuracy = profile.noise * random.uniform(1.0...1.6)
        lastFixIsSpike = false
        if options.scenario == .spikes {
            (e, n, lastFixIsSpike) = faults.apply(east: e, north: n, at: elapsed, random: &random)
        }
        if !lastFixIsSpike, random.chance(options.outlierProbability) {
            let distance = random.uniform(80...400)
            let direction = random.uniform(0...(2 * .pi))
            e += distance * sin(direction)
            n += distance * cos(direction)
            accuracy = random.uniform(8...30)
        }
        let position = projection.unproject(east: e, north: n)
        let measuredSpeed = Swift.max(0, speed + random.normal(deviation: 0.2))
        let course: Double? = speed > 0.5
            ? ((heading + random.normal(deviation: 3)).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360)
            : nil
        return Fix(
            time: options.startTime.addingTimeInterval(elapsed),
            latitude: position.latitude,
            longitude: position.longitude,
            horizontalAccuracy: (accuracy * 10).rounded() / 10,
            altitude: 300 + 5 * sin(elapsed / 600) + random.normal(deviation: 2),
            verticalAccuracy: (accuracy * 15).rounded() / 10,
            speed: measuredSpeed,
            course: course,
            source: .simulator
        )
    }
}
