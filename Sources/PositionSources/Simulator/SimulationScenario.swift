/// What the simulated device does.
public enum SimulationScenario: String, Sendable, Hashable, Codable, CaseIterable {
    /// Walking at about 1.4 m/s, turning at corners, stopping now and then.
    case walk
    /// Cycling at about 5.5 m/s, stopping at lights.
    case cycle
    /// Driving in town at about 14 m/s (50 km/h), accelerating and braking, stopping at lights.
    case drive
    /// Standing still: the position only jitters, as a parked GPS does.
    case still
    /// Walking, standing, driving and walking again, in turns.
    case mixed
    /// Driving as `drive`, through faults a noisy receiver makes: kilometre-long spikes (bursts of
    /// 1 to 4 fixes that agree with each other, 500-2,000 m off, then back on the road) every 1 to
    /// 3 minutes, and a tunnel every 8 to 15 minutes where the receiver repeats its last position
    /// for 30 to 90 s and then jumps to where the car really is (a true jump: it stays).
    case spikes
}
