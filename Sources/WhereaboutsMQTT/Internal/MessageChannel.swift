#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import SystemSupport
internal import WhereaboutsCore

/// The buffer between libmosquitto's thread and the consumers of one `messages` sequence.
///
/// The message callback appends under the lock; the session thread wakes a waiting consumer
/// once the first message since the last wake-up has waited 1 ms, or 256 messages wait, or the
/// connection failed (`MosquittoSession.wakeMessageConsumersWhenDue`), so during a burst the
/// consumer is resumed once per batch rather than once per message. A consumer takes the whole
/// buffer in one lock acquisition (it swaps its emptied batch array in, so the buffer's storage
/// is reused) and then returns messages from that batch without locking or suspending. So a
/// busy stream costs a few short locks per message on libmosquitto's thread and one lock plus at
/// most one suspension per *batch* on the consumer's side, where `AsyncStream` cost a lock and a
/// task resumption (often a thread wake-up) per message.
///
/// Unbounded on purpose: libmosquitto sends the PUBACK/PUBREC right after the callback returns,
/// so dropping a message here would lose one the broker counts as delivered, and blocking
/// libmosquitto's thread would also stop the PUBACKs of the connection's own publishes and its
/// keepalives (a consumer that publishes, as the subscriber does, could deadlock waiting for its
/// own acknowledgement). The backlog is bounded in practice by what the broker queues for the
/// session (`max_queued_messages`); see docs/mqtt.md, "Receiving messages".
///
/// Its state sits in a `LockedState` (a pthread mutex, which ThreadSanitizer understands; see
/// `LockedState` for why not `Synchronization.Mutex`).
final class MessageChannel: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var buffer: [MQTTMessage] = []
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
        var finished = false
    }

    /// What `take(into:)` found.
    enum Take {
        /// `batch` now holds one or more messages.
        case messages
        /// Nothing buffered yet; wait with `waitForMessages`.
        case empty
        /// Nothing buffered and the sequence has ended.
        case finished
    }

    private let state = LockedState(State())

    /// Runs `body` on the state while holding its lock.
    private func withState<T>(_ body: (inout State) -> T) -> T {
        state.withLock(body)
    }

    /// Appends a message (libmosquitto's thread). Waiting consumers are woken by `wake()`, which
    /// the session calls once the socket has nothing more to read right now (so a burst wakes a
    /// consumer once per batch, not once per message).
    func append(_ message: MQTTMessage) {
        withState { state in
            guard !state.finished else { return }
            state.buffer.append(message)
        }
    }

    /// Resumes the waiting consumers if anything is buffered.
    func wake() {
        let waiters = withState { state -> [Waiter] in
            guard !state.buffer.isEmpty, !state.waiters.isEmpty else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: true) }
    }

    /// Ends the sequence: what is buffered is still delivered, then consumers get `nil`.
    func finish() {
        let waiters = withState { state -> [Waiter] in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: true) }
    }

    /// Moves everything buffered into `batch` (which must be empty) in one lock acquisition,
    /// giving the channel `batch`'s storage to refill.
    func take(into batch: inout [MQTTMessage]) -> Take {
        withState { state in
            if state.buffer.isEmpty { return state.finished ? .finished : .empty }
            swap(&state.buffer, &batch)
            return .messages
        }
    }

    /// Puts messages an iterator took but never returned back in front of the buffer, so the
    /// next iterator of the same sequence gets them first.
    func putBack(_ messages: ArraySlice<MQTTMessage>) {
        guard !messages.isEmpty else { return }
        let waiters = withState { state -> [Waiter] in
            state.buffer.insert(contentsOf: messages, at: 0)
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: true) }
    }

    /// Suspends until a message is buffered or the sequence has ended (`true`), or the task is
    /// cancelled (`false`). Returns at once if either is already so.
    func waitForMessages(isolation actor: isolated (any Actor)?) async -> Bool {
        let id = withState { state in
            defer { state.nextWaiterID &+= 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Bool, Never>) in
                let ready: Bool? = withState { state in
                    if !state.buffer.isEmpty || state.finished { return true }
                    // The cancellation flag is set before the handler runs, so a handler that
                    // ran before this lock found no waiter to resume: it is seen here instead.
                    if Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = withState { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// How many messages wait in the buffer (for tests).
    var bufferedCount: Int { withState { $0.buffer.count } }

    /// Whether a consumer waits in `waitForMessages`.
    var hasWaiters: Bool { withState { !$0.waiters.isEmpty } }

    /// How many consumers wait in `waitForMessages` (for tests).
    var waiterCount: Int { withState { $0.waiters.count } }
}
