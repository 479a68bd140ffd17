/// Counts of the input a position source skipped, per ``RejectionReason``.
///
/// A plain value: take a snapshot from a ``RejectionCounter`` and print it, export it as metrics or
/// compare it in a test.
public struct SourceRejections: Sendable, Hashable, Codable {
    /// The number of rejections per reason; reasons never seen are absent.
    public private(set) var counts: [RejectionReason: Int]

    /// Creates a set of counts (empty by default).
    public init(counts: [RejectionReason: Int] = [:]) {
        self.counts = counts.filter { $0.value > 0 }
    }

    /// The number of inputs rejected for `reason` (0 when never).
    public subscript(reason: RejectionReason) -> Int {
        counts[reason] ?? 0
    }

    /// The number of inputs rejected for any reason.
    public var total: Int { counts.values.reduce(0, +) }

    /// Whether nothing was rejected.
    public var isEmpty: Bool { counts.isEmpty }

    /// The reasons with at least one rejection, in declaration order, with their counts.
    public var sorted: [(reason: RejectionReason, count: Int)] {
        RejectionReason.allCases.compactMap { reason in counts[reason].map { (reason, $0) } }
    }

    /// Adds one (or `count`) rejections for `reason`.
    public mutating func record(_ reason: RejectionReason, count: Int = 1) {
        counts[reason, default: 0] += count
    }

    /// The counts of both, added per reason.
    public func merging(_ other: SourceRejections) -> SourceRejections {
        var result = self
        for (reason, count) in other.counts { result.record(reason, count: count) }
        return result
    }
}
