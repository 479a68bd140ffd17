import Foundation
import Testing
import WhereaboutsTestSupport

@testable import Publisher

/// The drainer's wait for the MQTT connection: woken by the state update, bounded, cancellable.
@Suite("Connection uptime")
struct ConnectionUptimeTests {
    @Test("A waiter wakes when the connection comes up (true; a timeout would answer false)")
    func wakesOnConnect() async throws {
        let uptime = ConnectionUptime()
        let waiter = Task { await uptime.waitUntilConnected(timeout: .seconds(600)) }
        // Generous bounds: the whole suite shares two cooperative threads with CPU-heavy tests.
        try await waitUntil("the waiter to register", timeout: .seconds(60)) { uptime.waiting == 1 }
        uptime.markConnected(at: Date())
        let result = try await withTimeout(.seconds(60), "the waiter") { await waiter.value }
        #expect(result)
        #expect(uptime.since != nil)
        #expect(uptime.waiting == 0)
    }

    @Test("An up connection answers at once; a down one times out with false")
    func answersAndTimesOut() async throws {
        let uptime = ConnectionUptime()
        #expect(await uptime.waitUntilConnected(timeout: .milliseconds(20)) == false)
        uptime.markConnected(at: Date())
        #expect(await uptime.waitUntilConnected(timeout: .zero))
        #expect(uptime.markDisconnected())
        #expect(uptime.markDisconnected() == false)
        #expect(uptime.since == nil)
    }

    @Test("Cancelling the waiting task returns false at once")
    func cancellation() async throws {
        let uptime = ConnectionUptime()
        let waiter = Task { await uptime.waitUntilConnected(timeout: .seconds(60)) }
        waiter.cancel()
        let result = try await withTimeout(.seconds(60), "the cancelled waiter") { await waiter.value }
        #expect(result == false)
    }
}
