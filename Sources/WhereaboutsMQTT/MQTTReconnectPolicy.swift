#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Capped exponential backoff with jitter between reconnect attempts.
///
/// Attempt `n` (1-based) waits `min(maximumDelay, initialDelay * multiplier^(n-1))`, reduced by a
/// random fraction of at most `jitter`, so that many clients cut off at once by a broker restart do
/// not all come back in the same instant.
public struct MQTTReconnectPolicy: Sendable, Equatable {
    /// Whether the client reconnects at all after losing an established connection.
    public var enabled: Bool
    /// The wait before the first retry.
    public var initialDelay: Duration
    /// The cap on the wait.
    public var maximumDelay: Duration
    /// The growth factor per failed attempt (at least 1).
    public var multiplier: Double
    /// The largest fraction (0...1) taken off a delay at random.
    public var jitter: Double

    /// Creates a policy; the defaults retry after 0.5 s, 1 s, 2 s ... up to 30 s, minus up to 20 %.
    public init(
        enabled: Bool = true,
        initialDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(30),
        multiplier: Double = 2,
        jitter: Double = 0.2
    ) {
        self.enabled = enabled
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
    }

    /// The wait before attempt `attempt` (1-based), using `generator` for the jitter.
    public func delay(forAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let initial = initialDelay.seconds
        let cap = maximumDelay.seconds
        let exponent = Double(max(0, attempt - 1))
        let base = min(cap, initial * pow(multiplier, min(exponent, 64)))
        let cut = jitter > 0 ? Double.random(in: 0...jitter, using: &generator) : 0
        return .nanoseconds(Int64((base * (1 - cut) * 1e9).rounded()))
    }

    /// The wait before attempt `attempt` (1-based), with system randomness.
    public func delay(forAttempt attempt: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, using: &generator)
    }

    func validate() throws(MQTTError) {
        guard initialDelay > .zero, maximumDelay >= initialDelay else {
            throw .invalidArgument("reconnect delays must be positive with maximumDelay >= initialDelay")
        }
        guard multiplier >= 1, multiplier.isFinite else {
            throw .invalidArgument("the reconnect multiplier must be a finite number >= 1")
        }
        guard (0...1).contains(jitter) else { throw .invalidArgument("reconnect jitter must be within 0...1") }
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}
