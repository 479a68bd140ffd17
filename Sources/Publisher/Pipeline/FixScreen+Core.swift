import Foundation
import WhereaboutsCore

/// Core's rejection filters as the publisher's screen: the reason label is the filter's own.
extension FixFilter: FixScreen {
    /// Runs every filter; returns the rejection reason's label, or `nil` when accepted.
    public mutating func rejectionReason(for fix: Fix, now: Date) -> String? {
        check(fix, now: now)?.rawValue
    }
}
