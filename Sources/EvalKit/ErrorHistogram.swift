/// The live errors of one policy over many fixes, binned so that tracks can be pooled for a
/// median and a 95th percentile: 1 m bins up to 1 km, 10 m bins beyond (100 km and more share the
/// last). Percentiles are the upper edge of the bin that holds them, so at most one bin high.
package struct ErrorHistogram: Sendable, Hashable {
    private var counts: [Int: Int] = [:]
    /// How many errors were added.
    package private(set) var count = 0
    /// The largest error added.
    package private(set) var max = 0.0

    /// An empty histogram.
    package init() {}

    /// A histogram of `errors`.
    package init(_ errors: [Double]) {
        for error in errors { add(error) }
    }

    static func bin(_ error: Double) -> Int {
        guard error.isFinite, error > 0 else { return 0 }
        if error < 1_000 { return Int(error) }
        return Swift.min(1_000 + Int((error - 1_000) / 10), 10_900)
    }

    static func upperEdge(_ bin: Int) -> Double {
        bin < 1_000 ? Double(bin + 1) : 1_000 + Double(bin - 999) * 10
    }

    /// Adds one error (metres).
    package mutating func add(_ error: Double) {
        counts[Self.bin(error), default: 0] += 1
        count += 1
        if error > max { max = error }
    }

    /// Adds every error of `other`.
    package mutating func merge(_ other: ErrorHistogram) {
        for (bin, n) in other.counts { counts[bin, default: 0] += n }
        count += other.count
        max = Swift.max(max, other.max)
    }

    /// The `fraction` quantile (nearest rank), as the upper edge of its bin but never above the
    /// largest error; 0 when empty.
    package func quantile(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for bin in counts.keys.sorted() {
            seen += counts[bin] ?? 0
            if seen >= rank { return Swift.min(Self.upperEdge(bin), max) }
        }
        return max
    }
}
