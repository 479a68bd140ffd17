@testable import Dashboard
import Synchronization
import Testing
import WhereaboutsTestSupport

/// The doorbell the access watch waits on while no WebSocket is open (docs/dashboard.md, "Wake-ups
/// while idle"): ``AccessWatch/untilWatching()`` parks while nothing is watched, returns when a
/// connection registers (at once while one is registered), and ends on cancellation. Without I/O:
/// the watch is plain state. The live dashboard's revocation timing is SessionRevocationTests'.
@Suite("Dashboard: the access watch waits for a WebSocket")
struct AccessWatchIdleTests {
    let credential = Credential(account: "bob", passwordHash: "$2b$04$hash", session: "token")

    @Test("Parked while no connection is watched, woken by the first, at once while one is, ended by cancellation")
    func doorbell() async throws {
        let watch = AccessWatch()
        let parked = Task { await watch.untilWatching() }
        #expect(await isStillRunning(parked), "nothing watched: it waits")
        let connection = Task { await watch.untilRevoked(credential) { true } }
        try await withTimeout(.seconds(5), "the first watched connection to wake the waiter") { await parked.value }
        #expect(watch.count == 1)
        try await withTimeout(.seconds(5), "a wait while a connection is watched") { await watch.untilWatching() }
        // The connection ends (revoked): nothing is watched, the next wait parks again.
        #expect(watch.revoke { _ in true } == ["bob"])
        try await withTimeout(.seconds(5), "the revoked connection's wait to end") { await connection.value }
        #expect(watch.count == 0)
        let again = Task { await watch.untilWatching() }
        #expect(await isStillRunning(again))
        again.cancel()
        try await withTimeout(.seconds(5), "cancellation to end the wait") { await again.value }
    }
}
