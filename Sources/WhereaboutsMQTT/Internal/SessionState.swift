#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
internal import SystemSupport
internal import WhereaboutsCore

/// Everything a ``MosquittoSession`` knows that more than one thread reads or writes, guarded by
/// the session's ``LockedState``.
///
/// The connection's life is one ``Phase``, so that only legal combinations can be written (the
/// phase is written only on the session thread); what is independent of it (a stop request, the
/// calls in progress, the waiters) sits beside it. Every other field is private: the session changes
/// them through the transitions below, each named after the event that causes it (the
/// acknowledgement table keeps its own invariants).
struct SessionState {
    /// Where the connection stands.
    enum Phase: Equatable {
        /// The session thread has the handle to itself (connecting, which may wait on DNS): no
        /// other thread may call into libmosquitto. The phase a session starts in.
        case connecting
        /// The handle takes calls, but the broker has not accepted a connection (CONNACK still
        /// outstanding, or the connection was lost and the thread backs off).
        case disconnected
        /// The broker accepted the connection; `connect()` callers are not released yet.
        case connected
        /// Connected and announced through the hub: `connect()` returns at once from now on, so
        /// a caller never sees it return while `state` still says connecting.
        case announced
        /// The handle is about to be destroyed: no more C calls.
        case closing
        /// The handle is destroyed; why the session ended.
        case finished(MQTTDisconnectReason)
    }

    /// A `connect()` caller waiting for the broker's acceptance.
    struct ConnectWaiter {
        let continuation: CheckedContinuation<Void, any Error>
        let deadline: ContinuousClock.Instant
    }

    /// What a `connect()` caller finds when it asks to wait.
    enum ConnectWait {
        /// Already connected and announced: return.
        case connected
        /// The session has ended or is stopping: throw this.
        case failed(MQTTError)
        /// Registered: the session resumes the continuation.
        case registered
    }

    /// What the session thread must finish off when a connection ends.
    struct ConnectionEnd {
        let wasConnected: Bool
        let refusal: MQTTError?
        let libraryError: String?
        /// Operations that libmosquitto dropped with the connection (QoS 0 and unsent ones).
        let dropped: [AckTable.Waiter]
    }

    /// An operation libmosquitto acknowledged during the current pass of the session's loop, whose
    /// waiter the session thread resumes once the pass has returned.
    struct Completion {
        let continuation: UnsafeContinuation<Ack, any Error>
        let ack: Ack
    }

    /// The waiters to release when the session ends.
    struct Leftovers {
        /// Acknowledged, not yet resumed: they succeed.
        let completions: [Completion]
        let operations: [AckTable.Waiter]
        let connects: [ConnectWaiter]
        let exits: [CheckedContinuation<Void, Never>]
    }

    private(set) var phase: Phase = .connecting
    /// Why the session was asked to stop; `nil` until then.
    private(set) var stopReason: MQTTDisconnectReason?
    /// Whether the broker ever accepted a connection of this session.
    private(set) var everConnected = false
    /// Operations waiting for their acknowledgement, and the C calls in progress (the table
    /// keeps its own invariants; a call starts only through ``beginCall(publishing:queuesWhileDisconnected:)``).
    var acks = AckTable()
    /// Operations acknowledged since the session thread last took them, in the order their
    /// acknowledgements arrived (see ``acknowledged(_:_:)``).
    private var completions: [Completion] = []
    /// The broker's refusal from the last CONNACK, if it refused.
    private var refusal: MQTTError?
    /// The last error libmosquitto logged (TLS details come only this way).
    private(set) var lastLibraryError: String?
    /// The broker the current (or last) attempt connects to.
    private(set) var endpoint: MQTTConfiguration.Endpoint?
    /// Subscriptions the session thread sent itself (restored after a connect, or retried after
    /// a refusal), by message id, with the instant their SUBACK is due.
    private var resubscriptions: [Int32: (filter: String, deadline: ContinuousClock.Instant)] = [:]
    /// Whether the session thread waits (or is about to wait) in `poll`, so that the next thread
    /// that queues a packet or asks it to stop must wake it (``takeWakeRequest()``).
    private var sessionThreadWaits = false
    private var connectWaiters: [UInt64: ConnectWaiter] = [:]
    private var exitWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID: UInt64 = 0

    // MARK: Reading

    /// Whether the broker has accepted the current connection.
    var isConnected: Bool { phase == .connected || phase == .announced }

    /// Whether the session has been asked to stop or has ended.
    var isStopping: Bool {
        if case .finished = phase { return true }
        return stopReason != nil
    }

    /// Whether no other thread is inside a C call on the handle.
    var handleIsIdle: Bool { acks.callsInProgress == 0 }

    /// A new id for a connect or exit waiter.
    mutating func makeWaiterID() -> UInt64 {
        nextWaiterID += 1
        return nextWaiterID
    }

    // MARK: Session thread: the connection's life

    /// The session thread takes the handle for itself: to connect, or to destroy it (`closing`).
    /// It then waits for ``handleIsIdle``.
    mutating func takeHandle(closing: Bool) {
        phase = closing ? .closing : .connecting
    }

    /// A connection attempt starts: forget the last attempt's diagnostics.
    mutating func attemptStarted(at endpoint: MQTTConfiguration.Endpoint) {
        refusal = nil
        lastLibraryError = nil
        self.endpoint = endpoint
    }

    /// The blocking connect call returned: the handle takes calls again.
    mutating func handleReleased() {
        phase = .disconnected
    }

    /// The broker refused the connection in its CONNACK.
    mutating func brokerRefused(_ error: MQTTError) {
        refusal = error
    }

    /// libmosquitto logged an error or warning.
    mutating func libraryLogged(_ error: String) {
        lastLibraryError = error
    }

    /// The broker accepted the connection.
    mutating func brokerAccepted() {
        phase = .connected
        everConnected = true
    }

    /// The connection was announced through the hub: releases the `connect()` callers.
    mutating func connectionAnnounced() -> [ConnectWaiter] {
        guard phase == .connected else { return [] }
        phase = .announced
        defer { connectWaiters.removeAll() }
        return Array(connectWaiters.values)
    }

    /// The session thread sent a SUBSCRIBE for `filter` as message `mid`.
    mutating func resubscribing(_ mid: Int32, filter: String, deadline: ContinuousClock.Instant) {
        resubscriptions[mid] = (filter, deadline)
    }

    /// The SUBACK for `mid` arrived: the filter, if the session thread sent it.
    mutating func resubscribed(_ mid: Int32) -> String? {
        resubscriptions.removeValue(forKey: mid)?.filter
    }

    /// The filters whose SUBACK is overdue at `now`, forgotten (a late SUBACK is then ignored).
    mutating func expireResubscriptions(now: ContinuousClock.Instant) -> [String] {
        guard !resubscriptions.isEmpty else { return [] }
        var expired: [String] = []
        for (mid, entry) in resubscriptions where entry.deadline <= now {
            resubscriptions.removeValue(forKey: mid)
            expired.append(entry.filter)
        }
        return expired
    }

    /// libmosquitto acknowledged `mid` (a callback on the session thread). The waiter is not
    /// resumed here but queued, and the session thread resumes every waiter acknowledged in a
    /// pass of its loop after the pass (``takeCompletions(into:)``): a pass often reads
    /// many PUBACKs, and resuming their tasks back to back lets the pool's worker that picks up
    /// the first find the rest queued, instead of each PUBACK waking a worker of its own.
    mutating func acknowledged(_ mid: Int32, _ ack: Ack) {
        guard let waiter = acks.acknowledge(mid, ack) else { return }
        completions.append(Completion(continuation: waiter.continuation, ack: ack))
    }

    /// Moves the queued completions into `batch` (which must be empty), giving the state
    /// `batch`'s storage to refill.
    mutating func takeCompletions(into batch: inout [Completion]) {
        if !completions.isEmpty { swap(&completions, &batch) }
    }

    /// The loop failed (a read, a write, the keepalive, or the socket closed): the connection is gone.
    mutating func connectionEnded() -> ConnectionEnd {
        // Their SUBACKs will not come; the next connection restores the filters anyway.
        resubscriptions.removeAll()
        let end = ConnectionEnd(
            wasConnected: isConnected, refusal: refusal, libraryError: lastLibraryError,
            dropped: acks.removeUnqueued())
        phase = .disconnected
        return end
    }

    /// The handle is destroyed: the session has ended for `reason`.
    mutating func finished(_ reason: MQTTDisconnectReason) -> Leftovers {
        phase = .finished(reason)
        defer {
            completions.removeAll()
            connectWaiters.removeAll()
            exitWaiters.removeAll()
        }
        return Leftovers(
            completions: completions, operations: acks.removeAll(), connects: Array(connectWaiters.values),
            exits: Array(exitWaiters.values))
    }

    /// Removes the operations and connect waiters whose deadline has passed.
    mutating func expire(now: ContinuousClock.Instant) -> (operations: [AckTable.Waiter], connects: [ConnectWaiter]) {
        let operations = acks.expire(now: now)
        var connects: [ConnectWaiter] = []
        for (key, waiter) in connectWaiters where waiter.deadline <= now {
            connectWaiters.removeValue(forKey: key)
            connects.append(waiter)
        }
        return (operations, connects)
    }

    /// What the session thread must wake for, read as it is about to wait.
    struct Due: Equatable {
        /// The earliest timeout of an operation or a `connect()` caller (``expire(now:)``).
        var expiry: ContinuousClock.Instant?
        /// The earliest SUBACK deadline of a subscription the session thread sent.
        var resubscription: ContinuousClock.Instant?
        /// Whether the broker has accepted the current connection.
        var connected: Bool
    }

    /// The earliest timeout of an operation or a `connect()` caller, no later than the real one
    /// (``AckTable/earliestDeadline``); `nil` when nothing waits.
    var nextExpiry: ContinuousClock.Instant? {
        var expiry = acks.earliestDeadline
        for waiter in connectWaiters.values where expiry.map({ waiter.deadline < $0 }) ?? true {
            expiry = waiter.deadline
        }
        return expiry
    }

    /// The deadlines the session thread must wake for (``Due``).
    var due: Due {
        Due(expiry: nextExpiry, resubscription: resubscriptions.values.lazy.map(\.deadline).min(), connected: isConnected)
    }

    /// The session thread is about to wait in `poll` for the socket or its wake-up, until the
    /// earliest of the returned deadlines at the latest. It then checks for queued packets
    /// (`mosquitto_want_write`): a packet queued before this lock section is seen there, one
    /// queued after it finds the flag set and wakes the thread. Likewise a deadline set after
    /// this lock section by another thread wakes it (``takeWakeRequest()``), so that the wait
    /// is recomputed with it.
    mutating func sessionThreadWillWait() -> Due {
        sessionThreadWaits = true
        return due
    }

    /// The session thread returned from `poll`: nobody needs to wake it until it waits again.
    mutating func sessionThreadWoke() {
        sessionThreadWaits = false
    }

    // MARK: Other threads

    /// Whether the caller, which has just queued a packet, set a deadline or asked the session to
    /// stop, must signal the session's wake-up: true for the first caller while the session
    /// thread waits.
    mutating func takeWakeRequest() -> Bool {
        defer { sessionThreadWaits = false }
        return sessionThreadWaits
    }

    /// Asks the session to stop; the first reason given wins.
    mutating func requestStop(_ reason: MQTTDisconnectReason) {
        if stopReason == nil { stopReason = reason }
    }

    /// Starts a C call on the handle for `operation`, if the phase allows one; a publish needs a
    /// connection unless libmosquitto may queue it (`queuesWhileDisconnected`).
    mutating func beginCall(publishing: Bool, queuesWhileDisconnected: Bool) -> Bool {
        switch phase {
        case .connecting, .closing, .finished: return false
        case .disconnected where publishing && !queuesWhileDisconnected: return false
        case .disconnected, .connected, .announced:
            acks.beginCall()
            return true
        }
    }

    /// A `connect()` caller asks to wait for the connection.
    mutating func addConnectWaiter(_ id: UInt64, _ waiter: ConnectWaiter) -> ConnectWait {
        if phase == .announced { return .connected }
        if case .finished(.failed(let error)) = phase { return .failed(error) }
        if isStopping { return .failed(.clientClosed) }
        connectWaiters[id] = waiter
        return .registered
    }

    /// Removes a connect waiter (its task was cancelled).
    mutating func removeConnectWaiter(_ id: UInt64) -> ConnectWaiter? {
        connectWaiters.removeValue(forKey: id)
    }

    /// Registers a waiter for the end of the session; false when it has ended already.
    mutating func addExitWaiter(_ id: UInt64, _ continuation: CheckedContinuation<Void, Never>) -> Bool {
        if case .finished = phase { return false }
        exitWaiters[id] = continuation
        return true
    }

    /// Removes an exit waiter (its wait timed out).
    mutating func removeExitWaiter(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
        exitWaiters.removeValue(forKey: id)
    }
}
