import Foundation
import Testing
import WhereaboutsCore

/// The two tracking apps' defaults Whereabouts compares itself with.
struct AppDefaultPolicyTests {
    /// A fix `metres` east of (52 N, 13 E) at `seconds`.
    static func fix(_ seconds: Double, east metres: Double) -> Fix {
        Fix(time: Date(timeIntervalSince1970: 1_700_000_000 + seconds), latitude: 52,
            longitude: 13 + metres / (111_195 * cos(52 * .pi / 180)))
    }

    static func triggers(_ parameters: AppDefaultPolicy.Parameters, _ fixes: [Fix]) -> [String?] {
        var policy = AppDefaultPolicy(parameters: parameters)
        return fixes.map { policy.consider($0)?.trigger.rawValue }
    }

    @Test("OwnTracks move mode: 100 m or 300 s, whichever comes first")
    func ownTracksMove() {
        let fixes = [Self.fix(0, east: 0), Self.fix(10, east: 99), Self.fix(11, east: 101), Self.fix(300, east: 150), Self.fix(311, east: 150)]
        #expect(Self.triggers(AppDefaultPolicy.ownTracksMove, fixes) == ["f", nil, "t", nil, "T"])
    }

    @Test("Traccar Client: 75 m but not sooner than 30 s after the last report, and every 300 s")
    func traccar() {
        let fixes = [Self.fix(0, east: 0), Self.fix(10, east: 200), Self.fix(30, east: 210), Self.fix(59, east: 400), Self.fix(330, east: 410)]
        #expect(Self.triggers(AppDefaultPolicy.traccarClient, fixes) == ["f", nil, "t", nil, "T"])
        #expect(PolicySettings().makePolicy(.traccar).name == "traccar")
        #expect(PolicySettings().makePolicy(.ownTracksMove).name == "owntracks-move")
        #expect(!PolicyKind.standard.contains(.traccar))
    }
}
