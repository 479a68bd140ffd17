#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The clock that rejection filters and reporting policies read "now" from.
///
/// Live, "now" is the wall clock. In a replay it is the time of the fix being replayed, so a rule
/// such as "too old" or "`maxSilence` passed" means exactly the same thing in a replay as live.
/// Position sources that replay recorded data advance a ``ReplayFixClock``; everything else uses
/// ``WallFixClock``.
public protocol FixClock: Sendable {
    /// The current time as this clock sees it.
    func now() -> Date
}

/// A ``FixClock`` that reads the system's wall clock.
public struct WallFixClock: FixClock {
    /// Creates a wall clock.
    public init() {}

    /// The system's current time.
    public func now() -> Date { Date() }
}
