/// One location rejected at ingest as an outlier and kept aside in the history: never shown,
/// restorable (``HistoryStore/restoreRejected(of:from:to:notAfter:actor:client:at:)``).
package struct HistoryRejectedLocation: Sendable, Hashable {
    /// The location as the device sent it, whose it is and when it arrived.
    package var location: HistoryLocation
    /// Why it was rejected: `future_timestamp`, `poor_accuracy` or `implied_speed`.
    package var reason: String

    /// Creates a rejected location.
    package init(location: HistoryLocation, reason: String) {
        self.location = location
        self.reason = reason
    }
}
