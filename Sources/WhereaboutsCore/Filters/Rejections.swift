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
public struct Rejections: Sendable, Hashable, Codable {
    private var counts: [Int]

    /// No rejections yet.
    public init() {
        counts = Array(repeating: 0, count: FixFilter.Reason.allCases.count)
    }

    /// The number of fixes rejected for `reason`.
    public subscript(reason: FixFilter.Reason) -> Int {
        get { counts[Self.index(of: reason)] }
        set { counts[Self.index(of: reason)] = newValue }
    }

    /// The number of rejected fixes, all reasons together.
    public var total: Int { counts.reduce(0, +) }

    /// Counts one more rejection for `reason`.
    public mutating func record(_ reason: FixFilter.Reason) {
        self[reason] += 1
    }

    private static func index(of reason: FixFilter.Reason) -> Int {
        switch reason {
        case .invalidCoordinates: 0
        case .futureTimestamp: 1
        case .tooOld: 2
        case .tooInaccurate: 3
        case .notNewer: 4
        case .tooFast: 5
        }
    }
}
