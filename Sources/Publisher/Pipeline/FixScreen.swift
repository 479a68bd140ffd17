import Foundation
import WhereaboutsCore

/// The rejection filters in front of the policy, as the publisher sees them.
///
/// Core's filters conform in `FixScreen+Core.swift`; the reason is a short label used in logs and
/// in the `reason` label of the rejection counter.
public protocol FixScreen: Sendable {
    /// Checks a fix with `now` as the current time; returns `nil` to accept it (and remember it),
    /// or the reason it is rejected.
    mutating func rejectionReason(for fix: Fix, now: Date) -> String?
}

/// Accepts every valid fix that is newer than the last accepted one; the minimum screen used when
/// no filters are configured.
public struct BasicFixScreen: FixScreen {
    private var lastTime: Date?

    /// Creates the screen.
    public init() {}

    /// Rejects non-finite or out-of-range coordinates and fixes not newer than the last accepted.
    public mutating func rejectionReason(for fix: Fix, now: Date) -> String? {
        guard fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180,
              fix.time.timeIntervalSince1970.isFinite
        else { return "invalid" }
        if let lastTime, fix.time <= lastTime { return "not-newer" }
        lastTime = fix.time
        return nil
    }
}
