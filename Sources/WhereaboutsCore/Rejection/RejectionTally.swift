/// How many inputs were rejected, per reason: the one tally for every kind of rejected input (a
/// source's skipped sentences, the filters' dropped fixes).
///
/// The project's rule for rejected input: every rejection is counted; the first of each reason is
/// logged at info and the rest at debug, so one misbehaving device cannot flood the log.
/// ``record(_:count:)`` answers whether a rejection was the first of its reason.
public struct RejectionTally<Reason: Hashable & Sendable>: Sendable, Hashable {
    /// The number of rejections per reason; reasons never seen are absent.
    public private(set) var counts: [Reason: Int]

    /// Creates a tally (empty by default); zero counts are left out.
    public init(counts: [Reason: Int] = [:]) {
        self.counts = counts.filter { $0.value > 0 }
    }

    /// The number of inputs rejected for `reason` (0 when never).
    public subscript(reason: Reason) -> Int {
        counts[reason] ?? 0
    }

    /// The number of inputs rejected for any reason.
    public var total: Int { counts.values.reduce(0, +) }

    /// Whether nothing was rejected.
    public var isEmpty: Bool { counts.isEmpty }

    /// Adds one (or `count`) rejections for `reason`; returns whether they are the first of it
    /// (log those at info, the rest at debug).
    @discardableResult
    public mutating func record(_ reason: Reason, count: Int = 1) -> Bool {
        guard count > 0 else { return false }
        let before = counts[reason] ?? 0
        counts[reason] = before + count
        return before == 0
    }

    /// The counts of both, added per reason.
    func merging(_ other: RejectionTally) -> RejectionTally {
        var result = self
        for (reason, count) in other.counts { result.record(reason, count: count) }
        return result
    }
}

extension RejectionTally: Codable where Reason: Codable {}

extension RejectionTally where Reason: CaseIterable {
    /// The reasons with at least one rejection, in declaration order, with their counts.
    public var sorted: [(reason: Reason, count: Int)] {
        Reason.allCases.compactMap { reason in counts[reason].map { (reason, $0) } }
    }
}

extension RejectionTally: ExpressibleByDictionaryLiteral {
    /// Creates a tally with these counts per reason (zero counts are left out).
    public init(dictionaryLiteral elements: (Reason, Int)...) {
        self.init(counts: Dictionary(elements, uniquingKeysWith: +))
    }
}
