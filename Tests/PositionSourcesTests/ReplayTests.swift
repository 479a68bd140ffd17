import Foundation
import WhereaboutsTestSupport
import Testing
import WhereaboutsCore
@testable import PositionSources

@Suite("Replay")
struct ReplayTests {
    let logger = Fixtures.quietLogger

    func evenlySpaced(_ count: Int, every seconds: Double) -> [Fix] {
        (0..<count).map { i in
            Fix(time: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * seconds), latitude: 46, longitude: 14 + Double(i) * 1e-4)
        }
    }

    @Test("As fast as possible: every fix, in order, and the clock reads each fix's time as it is handed on")
    func fastWithClock() async throws {
        let fixes = evenlySpaced(50, every: 3_600)
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .asFastAsPossible)
        var seen: [Fix] = []
        let elapsed = try await ContinuousClock().measure {
            for try await fix in replay {
                #expect(replay.clock.now() == fix.time)
                seen.append(fix)
            }
        }
        #expect(seen == fixes)
        #expect(elapsed < .seconds(5), "50 hours of fixes replay without waiting")
    }

    @Test("N times speed keeps the recorded gaps divided by N")
    func multiplied() async throws {
        let fixes = evenlySpaced(11, every: 50)  // 500 s recorded
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .multiplied(1000))
        let elapsed = try await ContinuousClock().measure {
            for try await _ in replay {}
        }
        #expect(elapsed >= .milliseconds(495), "500 s at 1000x is 0.5 s")
        // The upper bound only shows the gaps were divided: real time would take 500 s. It is
        // loose because the test runner's few threads may be busy with CPU-heavy suites (a full
        // run once delayed these sleeps by 39 s in all).
        #expect(elapsed < .seconds(120))
    }

    @Test("Real time keeps the recorded gaps")
    func realTime() async throws {
        let fixes = evenlySpaced(4, every: 0.25)
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .realTime)
        var arrivals: [ContinuousClock.Instant] = []
        for try await _ in replay { arrivals.append(.now) }
        #expect(arrivals.count == 4)
        #expect(arrivals.last! - arrivals.first! >= .milliseconds(745))
    }

    @Test("Cancelling the consumer ends a long real-time replay at once")
    func cancellation() async throws {
        let fixes = evenlySpaced(3, every: 3_600)
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .realTime)
        let (started, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            var count = 0
            do {
                for try await _ in replay {
                    count += 1
                    signal.yield()
                }
            } catch is CancellationError {}
            return count
        }
        try await withTimeout(.seconds(5)) { for await _ in started { break } }
        task.cancel()
        let count = try await withTimeout(.seconds(5)) { try await task.value }
        #expect(count == 1)
    }

    @Test("A fix dated later than the next one is handed on at once and does not move the clock")
    func outOfOrderFutureFix() async throws {
        var fixes = evenlySpaced(21, every: 1)  // 20 s recorded
        fixes[10] = Fix(time: Date(timeIntervalSince1970: 1_893_456_000), latitude: 46, longitude: 14)  // 2030
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .multiplied(10))
        var clockAtOutlier: Date?
        var count = 0
        let elapsed = try await ContinuousClock().measure {
            for try await fix in replay {
                count += 1
                if fix.time == fixes[10].time { clockAtOutlier = replay.clock.now() }
            }
        }
        #expect(count == 21)
        #expect(clockAtOutlier == fixes[9].time, "the clock stays at the last in-order fix, so filters see a future fix")
        #expect(replay.clock.now() == fixes[20].time)
        // 2 s at 10x; the old replay waited until 2030. The bound is loose for a busy test runner.
        #expect(elapsed < .seconds(120), "2 s at 10x; the old replay waited for 2030")
    }

    // The first ten fixes span 900 s, so a replay that waited for them could not finish within the
    // generous bound below; the bound itself leaves room for a test runner whose few threads are
    // busy with other suites (a fresh-clone run once took 10.5 s for 1 s of pacing with 11 s of
    // recording here: a wall-clock bound close to the recording's length measured the machine).
    @Test("Fixes before resumeAfter are handed on without waiting; pacing starts after them")
    func resumeAfter() async throws {
        let start = 1_700_000_000.0
        let times = (0..<10).map { start + Double($0) * 100 } + [start + 1_000, start + 1_001]
        let fixes = times.enumerated().map { i, time in
            Fix(time: Date(timeIntervalSince1970: time), latitude: 46, longitude: 14 + Double(i) * 1e-4)
        }
        let resume = fixes[10].time  // the first ten were sent by an earlier run
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .realTime, resumeAfter: resume)
        let elapsed = try await ContinuousClock().measure {
            var count = 0
            for try await _ in replay { count += 1 }
            #expect(count == 12)
        }
        #expect(elapsed >= .milliseconds(990), "the 1 s gap after the resume point is kept")
        #expect(elapsed < .seconds(60), "the 1,000 s before it are not waited for")
    }

    @Test("A recording that starts in the future is refused")
    func wholeRecordingInFuture() async throws {
        let start = Date().addingTimeInterval(86_400 * 365)
        let fixes = (0..<3).map { Fix(time: start.addingTimeInterval(Double($0)), latitude: 46, longitude: 14) }
        let replay = ReplaySource(FixListSource(fixes: fixes, logger: logger), speed: .asFastAsPossible)
        await #expect(throws: PositionSourceError.self) {
            for try await _ in replay {}
        }
    }

    @Test("Replay speeds parse from text", arguments: [
        ("realtime", ReplaySpeed.realTime), ("1x", .realTime), ("fast", .asFastAsPossible),
        ("10x", .multiplied(10)), ("2.5", .multiplied(2.5)), ("0.5x", .multiplied(0.5)),
    ])
    func parseSpeed(text: String, expected: ReplaySpeed) {
        #expect(ReplaySpeed(text) == expected)
    }

    @Test("Bad replay speeds are refused", arguments: ["", "0", "-2x", "nan", "quick", "x"])
    func badSpeed(text: String) {
        #expect(ReplaySpeed(text) == nil)
    }

    @Test("The wall clock reads the system time")
    func wallClock() {
        let before = Date()
        let now = WallFixClock().now()
        #expect(now >= before && now <= Date())
    }

    @Test("A replay clock never goes backwards")
    func monotonic() {
        let clock = ReplayFixClock()
        clock.advance(to: Date(timeIntervalSince1970: 100))
        clock.advance(to: Date(timeIntervalSince1970: 50))
        #expect(clock.now() == Date(timeIntervalSince1970: 100))
    }
}
