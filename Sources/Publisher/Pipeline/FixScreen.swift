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
