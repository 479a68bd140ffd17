#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The latest `due` the publisher has promised (epoch seconds): the reporter records each
/// location message's, the heartbeat its own, and the heartbeat waits for the latest.
final class PromiseLedger: Sendable {
    private let latest = Mutex(Int.min)

    /// Creates an empty ledger: nothing promised yet.
    package init() {}

    /// Records a promise; an earlier one than already held changes nothing.
    package func promise(_ due: Int) {
        latest.withLock { $0 = max($0, due) }
    }

    /// The latest promise, or `nil` before the first.
    package var due: Int? {
        let value = latest.withLock { $0 }
        return value == .min ? nil : value
    }
}
