#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A small, fast, seedable pseudo-random generator (Steele, Lea and Flood's SplitMix64): the same
/// seed gives the same numbers on every platform and Swift version, which Swift's default generator
/// does not promise. The simulator, the tests and the benchmarks draw from it.
package struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator from `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in `0..<1` (53 bits of precision).
    package mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// A uniform number in `range`.
    package mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// A normally distributed number (Box-Muller), mean `mean`, standard deviation `deviation`.
    package mutating func normal(mean: Double = 0, deviation: Double = 1) -> Double {
        let u1 = Swift.max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return mean + deviation * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// `true` with probability `probability`.
    package mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }
}
