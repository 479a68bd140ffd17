import Foundation
import Testing
import WhereaboutsCore
import WhereaboutsTestSupport
@testable import WhereaboutsMQTT
import SystemSupport

/// The connection-state streams of `ClientHub`, fed from another thread as libmosquitto's thread
/// feeds them.
@Suite("Connection state streams")
struct ConnectionStateStreamTests {
    @Test("Consumers cancelled while another thread reports states never deadlock with it")
    func cancellingWhileStatesChange() async throws {
        let hub = ClientHub()
        let session = hub.makeCurrentSession()
        let stop = LockedState(false)
        let cancelled = LockedState(0)
        // libmosquitto's thread: state after state, as fast as it can.
        let reporter = Thread {
            var attempt = 0
            while !stop.withLock({ $0 }) {
                attempt += 1
                hub.setConnectionState(.reconnecting(attempt: attempt, lastError: nil), from: session)
            }
        }
        // The service group: cancels consumers that wait for the next state. Cancelling runs the
        // stream's termination handler, which takes the hub's lock; a yield under that lock
        // deadlocked the two (whereabouts-pub hung in about 1 of 300 runs). On a thread of its
        // own, so that a deadlock shows as a timeout instead of holding a test thread.
        let canceller = Thread {
            for _ in 0..<2_000 {
                let stream = hub.makeStateStream()
                let consumer = Task { for await _ in stream {} }
                usleep(50)
                consumer.cancel()
                cancelled.withLock { $0 += 1 }
            }
        }
        reporter.start()
        canceller.start()
        defer { stop.withLock { $0 = true } }
        try await waitUntil("2,000 consumers cancelled", timeout: .seconds(60)) { cancelled.withLock { $0 } == 2_000 }
    }
}
