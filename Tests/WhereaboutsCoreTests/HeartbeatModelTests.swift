import Foundation
import Testing
import EvalKit
import WhereaboutsCore

/// Heartbeats counted as the publisher sends them: after every `interval` of silence.
struct HeartbeatModelTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    @Test("Silence of an hour with a 900 s heartbeat: beats at 900, 1800, 2700 and 3600 s")
    func silence() {
        let model = HeartbeatModel(interval: 900)
        #expect(model.heartbeats(from: Self.at(0), to: Self.at(3600), sent: [Self.at(0)]) == [900, 1800, 2700, 3600].map(Self.at))
    }

    @Test("Each report moves the next heartbeat to an interval after it; a report at the due second wins")
    func reportsMoveTheBeat() {
        let model = HeartbeatModel(interval: 900)
        let sent = [0, 600, 1500, 2400].map(Self.at)
        #expect(model.heartbeats(from: Self.at(0), to: Self.at(4000), sent: sent) == [3300].map(Self.at))
        #expect(model.heartbeats(from: Self.at(0), to: Self.at(1000), sent: [Self.at(900)]).isEmpty)
        #expect(model.heartbeats(from: Self.at(0), to: Self.at(1000), sent: []) == [Self.at(900)])
    }

    @Test("The evaluator counts heartbeats as wake-ups and bytes; without a model nothing changes")
    func evaluator() {
        // A device standing still for two hours: one report, then silence.
        let track = (0...720).map { Fix(time: Self.at(Double($0) * 10), latitude: 46.05, longitude: 14.5, horizontalAccuracy: 5) }
        let reports = [EvaluatedReport(index: 0, report: Report(fix: track[0], trigger: .firstPublish), message: WireCost().message(for: Report(fix: track[0], trigger: .firstPublish)))]
        let plain = Evaluator().measure(policy: "still", reports: reports, on: track).evaluation
        #expect(plain.heartbeats == 0 && plain.wakeUps == 1)
        var counting = Evaluator()
        let model = HeartbeatModel(interval: 900)
        counting.heartbeat = model
        let honest = counting.measure(policy: "still", reports: reports, on: track).evaluation
        #expect(honest.heartbeats == 8)
        #expect(honest.wakeUps == 9)
        #expect(honest.bytes == plain.bytes + 8 * model.packetSize)
        #expect(model.packetSize > 100 && model.packetSize < 160, "about 86 bytes of JSON on a 30-byte topic")
    }
}
