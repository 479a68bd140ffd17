extension FixFilter {
    /// Why a rejection filter turned a fix away.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// Latitude or longitude is NaN, infinite or out of range, or the time is not finite.
        case invalidCoordinates = "invalid"
        /// The fix's time lies further in the future than the filter's tolerance.
        case futureTimestamp = "future"
        /// The fix is older than `maxAge` relative to the clock's "now".
        case tooOld = "too-old"
        /// The horizontal accuracy is worse (larger) than `maxAccuracy`.
        case tooInaccurate = "inaccurate"
        /// The fix is not newer than the last accepted fix.
        case notNewer = "not-newer"
        /// Reaching the fix from the last accepted fix would need a speed above `maxSpeed`.
        case tooFast = "too-fast"
    }
}

/// How many fixes the filters rejected, per reason.
public typealias Rejections = RejectionTally<FixFilter.Reason>
