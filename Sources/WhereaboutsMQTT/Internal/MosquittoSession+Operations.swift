import CMosquitto
import Foundation
internal import WhereaboutsCore

/// Links a waiting operation to its message id so that task cancellation can find it, whichever
/// of "id registered" and "task cancelled" happens first.
final class OperationToken: Sendable {
    private enum State { case starting, registered(Int32), cancelled }
    private let state = LockedState(State.starting)

    /// Records the id; returns false when the task was cancelled meanwhile.
    func register(_ mid: Int32) -> Bool {
        state.withLock { state in
            if case .cancelled = state { return false }
            state = .registered(mid)
            return true
        }
    }

    /// Marks the task cancelled; returns the id to cancel if one was registered.
    func cancel() -> Int32? {
        state.withLock { state in
            defer { state = .cancelled }
            if case .registered(let mid) = state { return mid }
            return nil
        }
    }
}

extension MosquittoSession {
    /// Runs one C call that returns a message id, then waits for that id's acknowledgement.
    ///
    /// The waiter is registered right after the C call returns; an acknowledgement that beat it
    /// is kept by the `AckTable` as an early one and claimed here, so no acknowledgement is lost
    /// and the session lock is never held across the C call.
    func perform(
        _ operation: MQTTOperation, timeout: Duration, stillQueuedOnGiveUp: Bool, subject: String,
        _ call: (OpaquePointer, UnsafeMutablePointer<Int32>) -> Int32
    ) async throws -> Ack {
        let token = OperationToken()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Ack, any Error>) in
                start(operation, timeout: timeout, stillQueuedOnGiveUp: stillQueuedOnGiveUp, subject: subject, token: token, continuation: continuation, call)
            }
        } onCancel: {
            guard let mid = token.cancel() else { return }
            state.withLock { $0.acks.cancel(mid) }?.continuation.resume(throwing: CancellationError())
        }
    }

    private func start(
        _ operation: MQTTOperation, timeout: Duration, stillQueuedOnGiveUp: Bool, subject: String,
        token: OperationToken, continuation: CheckedContinuation<Ack, any Error>,
        _ call: (OpaquePointer, UnsafeMutablePointer<Int32>) -> Int32
    ) {
        if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
            return
        }
        // Two lock sections per operation: enter (count the C call, so the handle is neither
        // reconnected nor destroyed under it) and leave (register the waiter or claim an early
        // acknowledgement). The lock is not held during the C call.
        let admitted = state.withLock {
            $0.beginCall(publishing: operation == .publish, queuesWhileDisconnected: configuration.queuesWhileDisconnected)
        }
        guard admitted else {
            continuation.resume(throwing: MQTTError.notConnected(mayStillBeDelivered: false))
            return
        }
        var mid: Int32 = 0
        let rc = call(handle, &mid)

        // Ending the call wakes the session thread if it waits for the handle (`withLock`).
        let outcome: Result<Ack, any Error>? = state.withLock { state in
            defer { state.acks.endCall() }
            if rc == MosquittoCode.success {
                let waiter = AckTable.Waiter(
                    continuation: continuation, operation: operation, timeout: timeout,
                    deadline: .now + timeout, stillQueuedOnGiveUp: stillQueuedOnGiveUp)
                return state.acks.register(mid, waiter).map { .success($0) }
            }
            // A QoS>0 publish that found no connection is still queued by libmosquitto (it got
            // an id) and is resent after a reconnect: say so, and drop its late acknowledgement.
            let queued = rc == MosquittoCode.noConnection && stillQueuedOnGiveUp && mid != 0
            if queued { state.acks.abandon(mid) }
            return .failure(MosquittoCode.operationError(rc, topic: subject, queued: queued))
        }

        if let outcome {
            continuation.resume(with: outcome)
        } else if !token.register(mid) {
            state.withLock { $0.acks.cancel(mid) }?.continuation.resume(throwing: CancellationError())
        }
    }
}
