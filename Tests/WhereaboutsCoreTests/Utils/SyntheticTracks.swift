import Foundation
import WhereaboutsCore

/// Small deterministic tracks for policy tests, built in a local east/north frame.
enum SyntheticTracks {
    static let origin = Coordinate(latitude: 52.66, longitude: -8.63)
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// A fix `seconds` after ``start`` at `east`/`north` metres from ``origin``.
    static func fix(_ seconds: Double, east: Double, north: Double = 0, speed: Double? = nil, accuracy: Double? = 5) -> Fix {
        let point = LocalProjection(origin: origin).unproject(east: east, north: north)
        return Fix(time: start.addingTimeInterval(seconds), latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy, speed: speed)
    }

    /// A straight eastward track at `speed` m/s, one fix per `step` seconds.
    static func straight(count: Int, speed: Double, step: Double = 1, reportSpeed: Bool = false) -> [Fix] {
        (0..<count).map { i in fix(Double(i) * step, east: Double(i) * step * speed, speed: reportSpeed ? speed : nil) }
    }

    /// A seeded scenario: driving with turns, a long stop, walking, GPS noise and an outlier.
    static func scenario(_ name: String, seed: UInt64) -> [Fix] {
        var state = seed
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var east = 0.0, north = 0.0, heading = 0.3
        var fixes: [Fix] = []
        for second in 0..<1_200 {
            let phase = second / 200
            let speed: Double
            switch (name, phase) {
            case (_, 2): speed = 0                      // a stop
            case ("walk", _): speed = 1.2
            case ("turns", _): speed = 12; heading += 0.03  // constant turning
            default: speed = [14.0, 8, 0, 25, 3, 11][phase] + (random() - 0.5)
            }
            if name == "zigzag", second % 30 == 0 { heading += .pi / 2 * (random() < 0.5 ? 1 : -1) }
            east += speed * sin(heading)
            north += speed * cos(heading)
            var noise = 4.0 * (random() - 0.5)
            if name == "noise" { noise *= 4 }
            fixes.append(fix(Double(second), east: east + noise, north: north - noise))
        }
        return fixes
    }

    /// Stop and go: 30 s driving east at 12 m/s, 30 s standing, with 4 m of GPS noise, for 20
    /// minutes (20 starts and 20 stops).
    static func stopAndGo(seed: UInt64) -> [Fix] {
        var state = seed
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        var east = 0.0
        return (0..<1_200).map { second in
            if (second / 30) % 2 == 0 { east += 12 }
            return fix(Double(second), east: east + 4 * (random() - 0.5), north: 4 * (random() - 0.5))
        }
    }
}
