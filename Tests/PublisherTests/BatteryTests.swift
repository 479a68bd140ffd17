import Foundation
import Testing
import WhereaboutsTestSupport
@testable import Publisher

@Suite("Battery")
struct BatteryTests {
    /// Writes a fake `/sys/class/power_supply` tree: `supplies` maps names to attribute files.
    private func sysfs(_ supplies: [String: [String: String]]) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        for (name, attributes) in supplies {
            for (attribute, value) in attributes { try dir.write(value + "\n", to: "\(name)/\(attribute)") }
        }
        return dir
    }

    @Test("Reads capacity and status of the first battery, skipping mains supplies")
    func reads() throws {
        let dir = try sysfs([
            "AC": ["type": "Mains", "online": "0"],
            "BAT0": ["type": "Battery", "capacity": "57", "status": "Discharging"],
            "BAT1": ["type": "Battery", "capacity": "99", "status": "Full"],
        ])
        let reading = BatteryReader(root: dir.url.path).read()
        #expect(reading == BatteryReading(level: 57, status: .unplugged))
    }

    @Test("Kernel status words map to OwnTracks bs", arguments: [
        ("Charging", 2), ("Full", 3), ("Discharging", 1), ("Not charging", 1), ("Unknown", 0), ("", 0),
    ])
    func statusWords(word: String, bs: Int) throws {
        let dir = try sysfs(["battery": ["type": "Battery", "capacity": "80", "status": word]])
        #expect(BatteryReader(root: dir.url.path).read()?.status.rawValue == bs)
    }

    @Test("No battery, a missing folder or a garbled capacity read as no battery")
    func absent() throws {
        let mains = try sysfs(["AC": ["type": "Mains", "online": "1"]])
        #expect(BatteryReader(root: mains.url.path).read() == nil)
        #expect(BatteryReader(root: mains.path("does-not-exist")).read() == nil)
        let garbled = try sysfs(["BAT0": ["type": "Battery", "capacity": "lots", "status": "Full"]])
        #expect(BatteryReader(root: garbled.url.path).read() == nil)
    }

    @Test("Changes on disk show in the next reading")
    func followsChanges() throws {
        let dir = try sysfs(["BAT0": ["type": "Battery", "capacity": "30", "status": "Discharging"]])
        let reader = BatteryReader(root: dir.url.path)
        #expect(reader.read()?.level == 30)
        try dir.write("18\n", to: "BAT0/capacity")
        try dir.write("Charging\n", to: "BAT0/status")
        #expect(reader.read() == BatteryReading(level: 18, status: .charging))
    }

    @Test("Low-battery rule: threshold and hysteresis")
    func hysteresis() {
        var rule = LowBatteryRule(threshold: 20, hysteresis: 10)
        let levels = [50, 21, 20, 25, 29, 30, 25, 15]
        let states = levels.map { rule.update(with: BatteryReading(level: $0, status: .unplugged)) }
        #expect(states == [false, false, true, true, true, false, false, true])
        #expect(rule.update(with: BatteryReading(level: 10, status: .charging)) == false, "plugged in is never low")
        #expect(rule.update(with: BatteryReading(level: 10, status: .unplugged)) == true)
    }

    @Test("A low battery forces significant; recovery restores what was asked")
    func selector() {
        var selector = ProfileSelector()
        #expect(selector.effective == .active)
        #expect(selector.setBatteryLow(true) == (.active, .significant))
        #expect(selector.request(.active) == (.significant, .significant), "asking for active while low changes nothing")
        #expect(selector.setBatteryLow(false) == (.significant, .active))
        _ = selector.request(.significant)
        #expect(selector.setBatteryLow(false).after == .significant)
    }
}
