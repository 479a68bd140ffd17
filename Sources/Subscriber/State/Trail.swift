/// A member's recent fixes, sorted by time, bounded in count and span, stored compactly
/// (12 bytes a point: seconds and micro-degrees), so 100,000 members fit in little memory.
struct Trail: Sendable, Hashable {
    private struct Point: Sendable, Hashable {
        var tst: UInt32
        var lat: Int32
        var lon: Int32
    }

    private var points: ContiguousArray<Point> = []

    /// Whether a point with exactly this time is held.
    func contains(tst: Int) -> Bool {
        let index = insertionIndex(for: UInt32(clamping: tst))
        return index < points.count && points[index].tst == UInt32(clamping: tst)
    }

    /// Inserts a fix in time order and trims to `maxCount` points within `maxSpan` seconds of the
    /// newest. Returns whether the trail changed (a fix older than the window is not kept).
    @discardableResult
    mutating func insert(tst: Int, lat: Double, lon: Double, maxCount: Int, maxSpan: Int) -> Bool {
        let point = Point(tst: UInt32(clamping: tst), lat: Int32((lat * 1e6).rounded()), lon: Int32((lon * 1e6).rounded()))
        let index = insertionIndex(for: point.tst)
        if index < points.count, points[index].tst == point.tst { return false }
        if points.capacity == 0 { points.reserveCapacity(maxCount + 1) }
        points.insert(point, at: index)
        let newest = Int(points[points.count - 1].tst)
        let cutoff = newest - maxSpan
        var drop = 0
        while drop < points.count - 1, Int(points[drop].tst) < cutoff || points.count - drop > maxCount {
            drop += 1
        }
        if drop > 0 { points.removeFirst(drop) }
        return drop <= index
    }

    /// Removes the point with exactly this time, if held.
    mutating func remove(tst: Int) {
        let index = insertionIndex(for: UInt32(clamping: tst))
        if index < points.count, points[index].tst == UInt32(clamping: tst) { points.remove(at: index) }
    }

    /// The points, oldest first.
    var trailPoints: [TrailPoint] {
        points.map { TrailPoint(tst: Int($0.tst), lat: Double($0.lat) / 1e6, lon: Double($0.lon) / 1e6) }
    }

    /// The number of points held.
    var count: Int { points.count }

    private func insertionIndex(for tst: UInt32) -> Int {
        var low = 0
        var high = points.count
        while low < high {
            let mid = (low + high) / 2
            if points[mid].tst < tst { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
