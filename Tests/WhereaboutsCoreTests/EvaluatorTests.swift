import Foundation
import Testing
import EvalKit
import WhereaboutsCore

struct EvaluatorTests {
    @Test("Metrics on a three-fix track computed by hand")
    func handComputed() throws {
        // Eastward at 10 m/s, fixes at 0, 10 and 20 s; the interval policy reports fixes 0 and 2.
        let track = [SyntheticTracks.fix(0, east: 0), SyntheticTracks.fix(10, east: 100), SyntheticTracks.fix(20, east: 200)]
        let evaluator = Evaluator()
        let run = evaluator.evaluate(IntervalPolicy(parameters: .init(interval: 20)), on: track)
        let e = run.evaluation
        #expect(run.reports.map(\.index) == [0, 2])
        #expect(e.fixes == 3 && e.reports == 2)
        #expect(abs(e.reportsPerHour - 360) < 1e-9)
        // Hold: 0, 100, 0 m; the nearest-rank p95 of three values is the largest.
        #expect(abs(e.holdError.max - 100) < 0.2)
        #expect(abs(e.holdError.p95 - 100) < 0.2)
        #expect(e.predictError == e.holdError)
        // The trail interpolates fix 1 exactly between fixes 0 and 2.
        #expect(e.maxTrackError < 0.2)
        #expect(e.wakeUps == 2)
        #expect(abs(e.energy - 2 * 10.91) < 1e-9)
        #expect(e.triggers == ["f": 1, "t": 1])
        // Bytes: each JSON payload plus 1 header byte, 1 length byte, 2 + 21 topic bytes, 2 id bytes.
        let payloads = try run.reports.map { try JSONEncoder().encode($0.message).count }
        #expect(e.bytes == payloads.reduce(0, +) + 2 * (1 + 1 + 2 + 21 + 2))
    }

    @Test("Predict uses the message's velocity; wake-ups need more than 10 s between reports")
    func predictAndWakeUps() {
        let track = (0..<12).map { SyntheticTracks.fix(Double($0) * 5, east: Double($0) * 50) }
        let reports = [0, 1, 2, 11].map { index in
            let report = Report(fix: track[index], trigger: index == 0 ? .firstPublish : .moving, velocity: Velocity(east: 10, north: 0), maxSilence: 600)
            return EvaluatedReport(index: index, report: report, message: LocationMessage(report: report, tid: "wb"))
        }
        let e = Evaluator().measure(policy: "test", reports: reports, on: track).evaluation
        #expect(e.predictError.max < 1)
        #expect(abs(e.holdError.max - 400) < 1)  // fix 10 is 400 m past fix 2
        #expect(e.wakeUps == 2)  // fix 0, then fix 11 (45 s later); 5 s gaps find the radio awake
    }

    @Test("MQTT remaining length takes more bytes as packets grow")
    func packetSize() {
        let wire = WireCost(topic: "owntracks/user/device")
        #expect(wire.packetSize(payloadSize: 100) == 1 + 1 + 125)
        #expect(wire.packetSize(payloadSize: 200) == 1 + 2 + 225)
    }
}
