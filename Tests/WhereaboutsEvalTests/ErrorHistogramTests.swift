import EvalKit
import Testing

/// Pooled live errors for the comparison table: percentiles to the metre above, exact maximum.
struct ErrorHistogramTests {
    @Test("Median and 95th percentile to the metre above, never above the largest error; merging pools")
    func quantiles() {
        var first = ErrorHistogram((0..<50).map { Double($0) + 0.5 })
        let second = ErrorHistogram((50..<100).map { Double($0) + 0.5 } + [])
        first.merge(second)
        #expect(first.count == 100)
        #expect(first.quantile(0.5) == 50)
        #expect(first.quantile(0.95) == 95)
        #expect(first.max == 99.5)
        #expect(ErrorHistogram([3.2]).quantile(0.5) == 3.2)
        #expect(ErrorHistogram().quantile(0.5) == 0)
        // Beyond 1 km, 10 m bins.
        #expect(ErrorHistogram([1_234, 5_000]).quantile(0.5) == 1_240)
    }
}
