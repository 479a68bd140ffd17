import Foundation
import WhereaboutsCore

/// The largest and the 95th-percentile error of one display model over a track, in metres.
package struct ErrorSummary: Sendable, Hashable, Codable {
    /// The largest error at any accepted fix.
    package var max: Double
    /// The 95th percentile (nearest rank) of the errors at the accepted fixes.
    package var p95: Double

    /// Summarises `errors`; both values are 0 for an empty list.
    package init(errors: [Double]) {
        guard !errors.isEmpty else {
            max = 0
            p95 = 0
            return
        }
        let sorted = errors.sorted()
        max = sorted[sorted.count - 1]
        let rank = Int((0.95 * Double(sorted.count)).rounded(.up))
        p95 = sorted[Swift.max(0, rank - 1)]
    }
}
