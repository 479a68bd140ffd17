import Testing
import WhereaboutsTestSupport
@testable import Publisher

/// The drainer's doorbell: rings coalesce, a ring ends a wait at once, a time limit ends it
/// without a ring, and a cancelled wait returns false (logic without I/O: no broker needed).
@Suite("Doorbell")
struct DoorbellTests {
    @Test("a ring before the wait is kept, and a burst of rings wakes the waiter once")
    func pendingRingsCoalesce() async throws {
        let doorbell = Doorbell()
        doorbell.ring()
        doorbell.ring()
        doorbell.ring()
        let first = try await withTimeout(.seconds(5), "the pending ring") { await doorbell.wait() }
        #expect(first)
        // The burst was one ring: the next wait with a limit runs to its limit.
        let clock = ContinuousClock()
        let waited = await clock.measure { await doorbell.wait(atMost: .milliseconds(200)) }
        #expect(waited >= .milliseconds(190))
    }

    @Test("a ring ends a wait with a limit long before the limit")
    func ringEndsLimitedWait() async throws {
        let doorbell = Doorbell()
        let clock = ContinuousClock()
        let woken = Task { await doorbell.wait(atMost: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        // Timed from the ring: under a loaded test run the sleep above may itself take seconds.
        let rung = clock.now
        doorbell.ring()
        let result = try await withTimeout(.seconds(10), "the rung wait") { await woken.value }
        #expect(result)
        #expect(clock.now - rung < .seconds(10), "ended by the ring, not by the 60 s limit")
    }

    @Test("the limit ends a wait nobody rings, and the doorbell still works after thousands of early ends")
    func limitEndsWait() async throws {
        let doorbell = Doorbell()
        // What the drainer does during a full-speed replay: a wait with a limit, ended by a ring.
        try await withTimeout(.seconds(30), "5,000 rung waits") {
            for _ in 0..<5_000 {
                doorbell.ring()
                await doorbell.wait(atMost: .seconds(1))
            }
        }
        let clock = ContinuousClock()
        let waited = await clock.measure {
            let result = await doorbell.wait(atMost: .milliseconds(100))
            #expect(result)
        }
        #expect(waited >= .milliseconds(95))
        #expect(waited < .seconds(10))
    }

    @Test("a cancelled wait returns false and leaves a later ring for the next wait")
    func cancelledWait() async throws {
        let doorbell = Doorbell()
        let waiting = Task { await doorbell.wait() }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let result = try await withTimeout(.seconds(10), "the cancelled wait") { await waiting.value }
        #expect(!result)
        // Cancelled before it waits: returns false at once, and does not take a pending ring.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await doorbell.wait(atMost: .seconds(60))
        }
        #expect(try await withTimeout(.seconds(10), "the wait cancelled early") { await early.value } == false)
        doorbell.ring()
        #expect(try await withTimeout(.seconds(10), "the ring after the cancellations") { await doorbell.wait() })
    }
}
