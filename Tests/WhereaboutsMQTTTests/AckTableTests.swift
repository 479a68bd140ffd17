import Testing
import WhereaboutsTestSupport
@testable import WhereaboutsMQTT
import SystemSupport

/// The acknowledgement bookkeeping, including acknowledgements that beat the C call's return.
struct AckTableTests {
    @Test("An acknowledgement that arrives before the waiter registers is claimed, not lost")
    func earlyAck() async throws {
        let ack: Ack = try await withUnsafeThrowingContinuation { continuation in
            var table = AckTable()
            table.beginCall()
            // The PUBACK for mid 7 arrives while mosquitto_publish has not returned 7 yet.
            let waiterForEarly = table.acknowledge(7, .published(reasonCode: 0))
            let waiter = AckTable.Waiter(
                continuation: continuation, operation: .publish, timeout: .seconds(1), deadline: .now + .seconds(1),
                stillQueuedOnGiveUp: true)
            let early = table.register(7, waiter)
            table.endCall()
            if waiterForEarly != nil || !table.waiters.isEmpty {
                continuation.resume(throwing: MQTTError.clientClosed)
            } else if let early {
                continuation.resume(returning: early)
            } else {
                continuation.resume(throwing: MQTTError.library(code: 0, detail: "early acknowledgement lost"))
            }
        }
        guard case .published(reasonCode: 0) = ack else {
            Issue.record("expected the early PUBACK, got \(ack)")
            return
        }
    }

    @Test("Acknowledgements nobody waits for are not matched to a later use of the id")
    func staleAck() async throws {
        let ack: Ack = try await withUnsafeThrowingContinuation { continuation in
            var table = AckTable()
            // Nobody is inside a C call: an unknown acknowledgement (code 0x10) is dropped.
            _ = table.acknowledge(9, .published(reasonCode: 0x10))
            // An abandoned id's late acknowledgement is dropped even during a call.
            table.beginCall()
            table.abandon(3)
            _ = table.acknowledge(3, .published(reasonCode: 0x10))
            table.endCall()
            // A new publish that gets id 9 must wait for its own acknowledgement (code 0).
            table.beginCall()
            let waiter = AckTable.Waiter(
                continuation: continuation, operation: .publish, timeout: .seconds(1), deadline: .now + .seconds(1),
                stillQueuedOnGiveUp: true)
            if let stale = table.register(9, waiter) {
                continuation.resume(returning: stale)
            } else {
                table.endCall()
                table.acknowledge(9, .published(reasonCode: 0))?.continuation.resume(returning: .published(reasonCode: 0))
            }
        }
        guard case .published(reasonCode: 0) = ack else {
            Issue.record("a stale acknowledgement was matched: \(ack)")
            return
        }
    }

    @Test("Expired waiters are returned once with their ids abandoned")
    func expiry() async throws {
        await #expect(throws: MQTTError.clientClosed) {
            let _: Ack = try await withUnsafeThrowingContinuation { continuation in
                var table = AckTable()
                table.beginCall()
                _ = table.register(
                    5,
                    AckTable.Waiter(
                        continuation: continuation, operation: .publish, timeout: .zero, deadline: .now,
                        stillQueuedOnGiveUp: true))
                table.endCall()
                let expired = table.expire(now: .now + .milliseconds(1))
                let again = table.expire(now: .now + .seconds(5))
                let late = table.acknowledge(5, .published(reasonCode: 0))
                if expired.count == 1 && again.isEmpty && late == nil {
                    expired[0].continuation.resume(throwing: MQTTError.clientClosed)
                } else {
                    expired.first?.continuation.resume(throwing: MQTTError.library(code: 0, detail: "wrong expiry"))
                }
            }
        }
    }
}

/// How a cancelled task finds its waiter (by its operation's serial number), and how the session
/// thread hands acknowledged operations back in order after a `mosquitto_loop` pass.
struct AckHandOverTests {
    @Test("Cancellation by serial takes only its own operation's waiter, never a newer one on a reused id")
    func cancelBySerial() async throws {
        let outcome: Ack = try await withUnsafeThrowingContinuation { continuation in
            var table = AckTable()
            table.beginCall()
            _ = table.register(
                5,
                AckTable.Waiter(
                    continuation: continuation, operation: .publish, timeout: .seconds(1), deadline: .now + .seconds(1),
                    stillQueuedOnGiveUp: true, serial: 41))
            table.endCall()
            // Operation 40 (done long ago, once on id 5) is cancelled late: nothing to take.
            let stale = table.cancel(serial: 40)
            let staleByID = table.cancel(5, serial: 40)
            guard stale == nil, staleByID == nil, let mine = table.cancel(serial: 41) else {
                continuation.resume(throwing: MQTTError.library(code: 0, detail: "the wrong waiter was cancelled"))
                return
            }
            // Its id is abandoned: the late PUBACK is dropped, not kept as an early one.
            table.beginCall()
            let late = table.acknowledge(5, .published(reasonCode: 0))
            table.endCall()
            if late != nil || !table.waiters.isEmpty {
                mine.continuation.resume(throwing: MQTTError.library(code: 0, detail: "a late acknowledgement was kept"))
            } else {
                mine.continuation.resume(returning: .unsubscribed)
            }
        }
        guard case .unsubscribed = outcome else {
            Issue.record("expected the cancelled waiter, got \(outcome)")
            return
        }
    }

    @Test("Acknowledged operations are handed over in arrival order, once")
    func completionsInOrder() async throws {
        // Three publishes on ids 1, 2, 3; their PUBACKs arrive as 2, 3, 1 within one pass.
        let session = LockedState(SessionState())
        let results = try await withThrowingTaskGroup(of: (Int, Int32).self) { group in
            for mid in Int32(1)...3 {
                group.addTask {
                    let ack: Ack = try await withUnsafeThrowingContinuation { continuation in
                        session.withLock { state in
                            state.acks.beginCall()
                            _ = state.acks.register(
                                mid,
                                AckTable.Waiter(
                                    continuation: continuation, operation: .publish, timeout: .seconds(5),
                                    deadline: .now + .seconds(5), stillQueuedOnGiveUp: true, serial: UInt64(mid)))
                            state.acks.endCall()
                        }
                    }
                    guard case .published(let code) = ack else { return (0, mid) }
                    return (Int(code), mid)
                }
            }
            try await waitUntil("the three publishes to wait") { session.withLock { $0.acks.waiters.count } == 3 }
            var batch: [SessionState.Completion] = []
            session.withLock { state in
                for mid in [Int32(2), 3, 1] { state.acknowledged(mid, .published(reasonCode: 0x10 + mid)) }
                state.acknowledged(2, .published(reasonCode: 0x7F))  // a duplicate: nobody waits any more
                state.takeCompletions(into: &batch)
            }
            #expect(batch.map { Self.code(of: $0.ack) } == [0x12, 0x13, 0x11])
            var again: [SessionState.Completion] = []
            session.withLock { $0.takeCompletions(into: &again) }
            #expect(again.isEmpty)
            for completion in batch { completion.continuation.resume(returning: completion.ack) }
            var results: [(Int, Int32)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.sorted { $0.1 < $1.1 }.map { $0.0 } == [0x11, 0x12, 0x13])
    }

    /// The reason code of a PUBACK, or -1.
    private static func code(of ack: Ack) -> Int32 {
        if case .published(let code) = ack { return code }
        return -1
    }
}
