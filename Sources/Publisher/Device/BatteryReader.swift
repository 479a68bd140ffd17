#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import WhereaboutsCore
import SystemSupport

/// Reads the battery from the Linux power-supply class: `<root>/<supply>/capacity` and `status`.
///
/// The first supply (in name order) whose `type` is `Battery` and that has a readable `capacity`
/// is used. The kernel's `status` words map to OwnTracks' `bs`: `Charging` 2, `Full` 3,
/// `Discharging` and `Not charging` 1, anything else 0. The root is injectable so tests can point
/// it at a folder of their own.
struct BatteryReader: Sendable {
    /// The power-supply class folder, `/sys/class/power_supply` on Linux.
    var root: String

    /// The kernel's power-supply class folder.
    static let systemRoot = "/sys/class/power_supply"

    /// Creates a reader for the folder `root`.
    init(root: String = BatteryReader.systemRoot) {
        self.root = root
    }

    /// The current reading, or `nil` when there is no battery (a mains-powered device).
    func read() -> BatteryReading? {
        guard let supplies = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
        for supply in supplies.sorted() {
            let folder = PathText.appending(supply, to: root)
            if let type = value(folder, "type"), type != "Battery" { continue }
            guard let capacityText = value(folder, "capacity"), let capacity = Int(capacityText) else { continue }
            return BatteryReading(level: capacity, status: Self.status(fromKernel: value(folder, "status")))
        }
        return nil
    }

    /// Maps the kernel's `status` word to OwnTracks' `bs`.
    static func status(fromKernel word: String?) -> BatteryReading.Status {
        switch word {
        case "Charging": .charging
        case "Full": .full
        case "Discharging", "Not charging": .unplugged
        default: .unknown
        }
    }

    private func value(_ folder: String, _ attribute: String) -> String? {
        let path = PathText.appending(attribute, to: folder)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.trimmingWhitespaceAndNewlines()
    }
}
