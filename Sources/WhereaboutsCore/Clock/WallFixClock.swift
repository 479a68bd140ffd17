import Foundation
import Synchronization

/// A ``FixClock`` that reads the system's wall clock.
public struct WallFixClock: FixClock {
    /// Creates a wall clock.
    public init() {}

    /// The system's current time.
    public func now() -> Date { Date() }
}
