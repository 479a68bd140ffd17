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

/// The `spikes` scenario's receiver faults, drawn from the simulator's seeded generator:
/// kilometre-long spikes and tunnels that end in a true jump.
struct ReceiverFaults: Sendable {
    private var nextSpike = 0.0
    private var spikeFixesLeft = 0
    private var spikeEast = 0.0
    private var spikeNorth = 0.0
    private var tunnelStart = 0.0
    private var tunnelEnd = 0.0
    private var frozen: (east: Double, north: Double)?

    /// Plans the first spike and tunnel after `elapsed` seconds.
    mutating func schedule(after elapsed: Double, random: inout SplitMix64) {
        nextSpike = elapsed + random.uniform(60...180)
        scheduleTunnel(after: elapsed, random: &random)
    }

    private mutating func scheduleTunnel(after elapsed: Double, random: inout SplitMix64) {
        tunnelStart = elapsed + random.uniform(480...900)
        tunnelEnd = tunnelStart + random.uniform(30...90)
    }

    /// The measured position for the true-plus-noise position (`east`, `north`) at `elapsed`
    /// seconds, and whether it is a spike.
    mutating func apply(east: Double, north: Double, at elapsed: Double, random: inout SplitMix64) -> (Double, Double, Bool) {
        if elapsed >= tunnelStart, elapsed < tunnelEnd {
            // In the tunnel the receiver repeats the last position it had.
            let held = frozen ?? (east, north)
            frozen = held
            return (held.east, held.north, false)
        }
        if frozen != nil {
            // Out of the tunnel: the position jumps to where the car is, and stays there.
            frozen = nil
            scheduleTunnel(after: elapsed, random: &random)
        }
        if spikeFixesLeft == 0, elapsed >= nextSpike {
            spikeFixesLeft = Int(random.uniform(1...4.999))
            let distance = random.uniform(500...2_000)
            let direction = random.uniform(0...(2 * .pi))
            spikeEast = distance * sin(direction)
            spikeNorth = distance * cos(direction)
            nextSpike = elapsed + random.uniform(60...180)
        }
        guard spikeFixesLeft > 0 else { return (east, north, false) }
        spikeFixesLeft -= 1
        return (east + spikeEast + random.normal(deviation: 5), north + spikeNorth + random.normal(deviation: 5), true)
    }
}
