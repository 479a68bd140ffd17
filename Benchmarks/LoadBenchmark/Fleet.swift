import Foundation
import WhereaboutsCore
import SystemSupport

/// The simulated devices: who they are, how they move, which circles they form.
///
/// The mix (about one report per 30 s on average, as the issue asks): 60 % stand still and report
/// every 300 s, 25 % walk (1.4 m/s) and report every 20 s, 15 % drive (14 m/s) and report every
/// 8 s; 0.6/300 + 0.25/20 + 0.15/8 = 0.033 reports per second per device. Positions wander from
/// a home near Limerick at the mode's speed. Circles hold 2 to 8 devices. Seeded: every run of
/// the same size is the same fleet.
struct Fleet {
    enum Mode: String { case still, walking, driving }

    struct Device {
        var user: String
        var mode: Mode
        var interval: Double
        var speed: Double
        var lat: Double
        var lon: Double
        var heading: Double
        /// When the first report goes out, seconds after the start (spread over one interval).
        var offset: Double
    }

    private(set) var devices: [Device] = []
    private(set) var circles: [[Int]] = []

    init(count: Int, seed: UInt64 = 42) {
        var random = SplitMix64(seed: seed)
        for index in 0..<count {
            let roll = random.unit()
            let mode: Mode = roll < 0.6 ? .still : roll < 0.85 ? .walking : .driving
            let (interval, speed): (Double, Double) = switch mode {
            case .still: (300, 0)
            case .walking: (20, 1.4)
            case .driving: (8, 14)
            }
            devices.append(Device(
                user: "d\(index)", mode: mode, interval: interval, speed: speed,
                lat: 52.60 + random.unit() * 0.2, lon: -8.75 + random.unit() * 0.3,
                heading: random.unit() * 2 * .pi, offset: random.unit() * interval))
        }
        var next = 0
        while next < count {
            let size = min(2 + Int(random.unit() * 7), count - next)
            circles.append(Array(next..<next + max(size, 1)))
            next += max(size, 1)
        }
    }

    /// Moves device `index` by `seconds` and returns its OwnTracks location at `tst`.
    mutating func report(_ index: Int, after seconds: Double, tst: Int) -> String {
        var device = devices[index]
        if device.speed > 0 {
            let metres = device.speed * seconds
            device.lat += metres * cos(device.heading) / 111_320
            device.lon += metres * sin(device.heading) / (111_320 * cos(device.lat * .pi / 180))
            device.heading += (Double(index % 7) - 3) * 0.05
        }
        devices[index] = device
        let vel = Int((device.speed * 3.6).rounded())
        return #"{"_type":"location","tid":"ld","tst":\#(tst),"lat":\#(String(format: "%.6f", device.lat)),"lon":\#(String(format: "%.6f", device.lon)),"acc":8,"vel":\#(vel),"t":"t"}"#
    }

    /// The circles file for the subscribers.
    var circlesYAML: String {
        var lines = ["circles:"]
        for (number, members) in circles.enumerated() {
            lines.append("  - id: c\(number)")
            lines.append("    members:")
            for member in members { lines.append("      - {user: \(devices[member].user), device: p}") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
