#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The most recent fixes (time and position only), newest last, in a fixed-size ring: appending is
/// O(1) and allocation-free once full.
struct FixHistory: Sendable {
    struct Entry: Sendable {
        var time: Double
        var latitude: Double
        var longitude: Double
    }

    private var entries: [Entry]
    private var next = 0
    private(set) var count = 0

    init(capacity: Int) {
        entries = Array(repeating: Entry(time: 0, latitude: 0, longitude: 0), count: max(2, capacity))
    }

    mutating func append(_ fix: Fix) {
        entries[next] = Entry(time: fix.time.timeIntervalSince1970, latitude: fix.latitude, longitude: fix.longitude)
        next = next + 1 == entries.count ? 0 : next + 1
        count = min(count + 1, entries.count)
    }

    /// The `age`-th newest entry: 0 is the newest.
    subscript(age: Int) -> Entry {
        let index = next - 1 - age
        return entries[index < 0 ? index + entries.count : index]
    }
}
