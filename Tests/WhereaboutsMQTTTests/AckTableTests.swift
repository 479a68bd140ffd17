import Testing
@testable import WhereaboutsMQTT

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
