import Foundation
import WhereaboutsCore

/// One report of an evaluation run: which accepted fix it reported and what went on the wire.
package struct EvaluatedReport: Sendable, Hashable {
    /// The index of the reported fix in the accepted track, from 0.
    package var index: Int
    /// The report the policy made.
    package var report: Report
    /// The message as sent, after wire rounding.
    package var message: LocationMessage
    /// For `bounded`: which estimator led and which rules shaped the report (`--reports`).
    package var choice: BoundedPolicy.Choice?

    /// Creates a report record.
    package init(index: Int, report: Report, message: LocationMessage, choice: BoundedPolicy.Choice? = nil) {
        self.index = index
        self.report = report
        self.message = message
        self.choice = choice
    }
}
