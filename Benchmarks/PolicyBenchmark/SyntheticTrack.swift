import Foundation
import WhereaboutsCore

/// A deterministic 1 Hz vehicle track: cruising with slow turns, speed changes, stops and GPS
/// noise, generated from a fixed seed so every run measures the same input.
func syntheticTrack(count: Int) -> [Fix] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func random() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    let origin = Coordinate(latitude: 52.66, longitude: -8.63)
    let projection = LocalProjection(origin: origin)
    var east = 0.0, north = 0.0, heading = 0.0, speed = 10.0, stopLeft = 0
    var fixes: [Fix] = []
    fixes.reserveCapacity(count)
    for second in 0..<count {
        if stopLeft > 0 {
            stopLeft -= 1
        } else {
            if random() < 0.005 { stopLeft = Int(random() * 60) }
            heading += (random() - 0.5) * 0.1
            speed = min(30, max(2, speed + (random() - 0.5)))
            east += speed * sin(heading)
            north += speed * cos(heading)
        }
        let noise = 3.0
        let point = projection.unproject(east: east + (random() - 0.5) * noise, north: north + (random() - 0.5) * noise)
        fixes.append(Fix(time: Date(timeIntervalSince1970: 1_700_000_000 + Double(second)), latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5))
    }
    return fixes
}
