#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A ``FixClock`` whose "now" is the time of the latest replayed fix.
///
/// A replay calls ``advance(to:)`` just before it hands a fix on, so a filter that asks for "now"
/// while looking at that fix sees the fix's own time (age zero), exactly as a live receiver that
/// reads a fix the moment it arrives. Time never goes backwards: advancing to an earlier time is
/// ignored.
public final class ReplayFixClock: FixClock {
    // One owner for the current time: the mutex.
    private let current: Mutex<Date>

    /// Creates a replay clock that reads `start` until the first fix is replayed.
    public init(start: Date = Date(timeIntervalSince1970: 0)) {
        current = Mutex(start)
    }

    /// The time of the latest replayed fix (or the start time before the first one).
    public func now() -> Date {
        current.withLock { $0 }
    }

    /// Moves the clock to `time` if that is later than its current time.
    public func advance(to time: Date) {
        current.withLock { if time > $0 { $0 = time } }
    }
}
