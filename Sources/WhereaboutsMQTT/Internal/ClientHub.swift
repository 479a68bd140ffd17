#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
internal import WhereaboutsCore
internal import SystemSupport
import Synchronization

/// What outlives a single connection of an `MQTTClient`: the current state, the listeners of
/// `messages` and `stateUpdates`, and the subscriptions to restore after a reconnect.
///
/// Sessions (one per `connect()`/`start()`) report into the hub from libmosquitto's thread;
/// the hub never calls into libmosquitto, so it can be locked from anywhere.
final class ClientHub: Sendable {
    /// A subscription to restore after a reconnect, and to retry while the broker refuses it.
    struct Subscription: Sendable {
        var filter: String
        var qos: QoS
        /// Whether the broker has granted it (so a resumed persistent session still has it).
        var acknowledged: Bool
        /// Failed attempts since it was last granted (refused in SUBACK, or no SUBACK in time).
        var failures = 0
        /// When the next attempt is due after a failure; `nil` while none is scheduled (granted,
        /// waiting for its SUBACK, or waiting for the connection, which restores it anyway).
        var retryAt: ContinuousClock.Instant?
    }

    private struct State {
        var connection: MQTTConnectionState = .disconnected(.notStarted)
        /// When the current connection was accepted; `nil` while not connected.
        var connectedSince: Date?
        /// Whether a connection started a new broker session since `takeFreshSession()` last ran.
        var freshSession = false
        var stateListeners: [UInt64: AsyncStream<MQTTConnectionState>.Continuation] = [:]
        /// One channel per live `messages` sequence, an array because it is walked per message.
        var messageChannels: [(id: UInt64, channel: MessageChannel)] = []
        /// Every message delivered since the client started (wrapping): the arrival rate for
        /// acknowledgement coalescing, and with `deliveredAtLastWake` the unwoken messages.
        var deliveredMessages: UInt64 = 0
        /// `deliveredMessages` when consumers were last woken (see `wakeMessageConsumers`).
        var deliveredAtLastWake: UInt64 = 0
        /// Messages delivered since consumers were last woken.
        var unwokenMessages: Int { Int(truncatingIfNeeded: deliveredMessages &- deliveredAtLastWake) }
        /// Whether the connection coalesces its acknowledgements right now, and how many times
        /// it started to (`coalescesAcknowledgementsDuringBursts`; for tests and diagnostics).
        var coalescing = false
        var coalescingPeriods = 0
        /// How many times a packet queued while the connection's thread waited was written only
        /// after the wait timed out (`MosquittoSession+Loop.swift`; for tests and diagnostics).
        var writesAfterTimeout = 0
        /// The subscriptions in the order they were first made.
        var subscriptions: [Subscription] = []
        /// No later than the earliest `retryAt` of `subscriptions` (`nil`: none scheduled): set
        /// with each retry scheduled, recomputed by `subscriptionsDue(now:)`, left as it was
        /// when a retry is cleared otherwise (the session thread then wakes once for nothing).
        var earliestRetry: ContinuousClock.Instant?
        /// Failed subscription attempts since the client was made, by reason
        /// (``MQTTReasonCode/name``, or `no_answer` when no SUBACK came in time).
        var subscriptionFailures: [String: Int] = [:]
        var nextListenerID: UInt64 = 0
        /// Only the newest session may report state: an old one may still be winding down.
        var currentSessionID: UInt64 = 0
    }

    private let state = LockedState(State())
    /// How many times a connection's thread has waited in `poll` (each wait is at most one
    /// wake-up of that thread; for tests of an idle client). An atomic counter, not a field of
    /// `state`: the loop adds to it on every wait, and a relaxed increment costs no lock section.
    private let pollWaits = Atomic<Int>(0)

    var connectionState: MQTTConnectionState { state.withLock { $0.connection } }

    /// When the current connection was accepted, or `nil` while not connected.
    var connectedSince: Date? { state.withLock { $0.connectedSince } }

    /// Whether a connection started a new broker session since the last call; clears it.
    func takeFreshSession() -> Bool {
        state.withLock { state in
            defer { state.freshSession = false }
            return state.freshSession
        }
    }

    /// Makes `id` the session whose reports count, and returns it.
    func makeCurrentSession() -> UInt64 {
        state.withLock { state in
            state.currentSessionID += 1
            return state.currentSessionID
        }
    }

    /// Records the current session's new state and hands it to every `stateUpdates` sequence.
    ///
    /// The state is yielded after the lock is released: a yield can resume a waiting consumer,
    /// which takes that task's status lock, while cancelling the consumer holds its status lock
    /// and runs the stream's termination handler, which takes this lock. Yielding under the lock
    /// deadlocked the two (libmosquitto's thread and the cancelling task) in 2 of about 1,000
    /// runs of `whereabouts-pub` whose service group was cancelled while it was reconnecting.
    /// Only the current session reports states, one after another (its first before its thread
    /// starts, the rest on that thread), so they still arrive in order.
    func setConnectionState(_ new: MQTTConnectionState, from sessionID: UInt64) {
        let listeners = state.withLock { state -> [AsyncStream<MQTTConnectionState>.Continuation] in
            guard state.currentSessionID == sessionID, state.connection != new else { return [] }
            state.connection = new
            // Set with the state, so whoever sees the connection up sees its session flag too.
            if case .connected(let sessionPresent) = new {
                state.connectedSince = Date()
                if !sessionPresent { state.freshSession = true }
            } else {
                state.connectedSince = nil
            }
            return Array(state.stateListeners.values)
        }
        for listener in listeners { listener.yield(new) }
    }

    /// Hands a received message to every `messages` sequence (libmosquitto's thread). Consumers
    /// waiting for it are woken by `wakeMessageConsumers()`.
    func deliver(_ message: MQTTMessage) {
        state.withLock { state in
            state.deliveredMessages &+= 1
            for listener in state.messageChannels { listener.channel.append(message) }
        }
    }

    /// Records that the connection turned acknowledgement coalescing on or off.
    func noteCoalescing(_ on: Bool) {
        state.withLock { state in
            if on && !state.coalescing { state.coalescingPeriods += 1 }
            state.coalescing = on
        }
    }

    /// Whether acknowledgements are being coalesced now, and how many bursts started so far.
    var coalescing: (isOn: Bool, periods: Int) {
        state.withLock { ($0.coalescing, $0.coalescingPeriods) }
    }

    /// Records that a queued packet waited out the connection thread's whole `poll` timeout.
    func noteWriteAfterTimeout() {
        state.withLock { $0.writesAfterTimeout += 1 }
    }

    /// How many times a queued packet waited out the connection thread's whole `poll` timeout.
    var writesAfterTimeout: Int {
        state.withLock { $0.writesAfterTimeout }
    }

    /// Records that the connection's thread is about to wait in `poll` (session thread).
    func notePollWait() {
        pollWaits.add(1, ordering: .relaxed)
    }

    /// How many times a connection's thread has waited in `poll` since the client was made.
    var pollWaitCount: Int {
        pollWaits.load(ordering: .relaxed)
    }

    /// How many messages were delivered since the client started (wrapping).
    func deliveredCount() -> UInt64 {
        state.withLock { $0.deliveredMessages }
    }

    /// How many messages were delivered since consumers were last woken, counted only while a
    /// consumer waits: when none waits, the count restarts at 0, since a consumer looks at its
    /// buffer before it waits and so finds those messages itself.
    func messagesAwaitingWakeup() -> Int {
        state.withLock { state in
            guard state.unwokenMessages > 0 else { return 0 }
            if state.messageChannels.contains(where: { $0.channel.hasWaiters }) { return state.unwokenMessages }
            state.deliveredAtLastWake = state.deliveredMessages
            return 0
        }
    }

    /// Wakes the consumers waiting for messages delivered since the last call.
    func wakeMessageConsumers() {
        // Woken after the lock is released, for the reason given at `setConnectionState`.
        let channels = state.withLock { state -> [MessageChannel] in
            guard state.unwokenMessages > 0 else { return [] }
            state.deliveredAtLastWake = state.deliveredMessages
            return state.messageChannels.map(\.channel)
        }
        for channel in channels { channel.wake() }
    }

    /// A new `messages` sequence's channel, registered until the registration is released.
    func makeMessageChannel() -> MessageChannelRegistration {
        let channel = MessageChannel()
        let id = state.withLock { state in
            let id = state.nextListenerID
            state.nextListenerID += 1
            state.messageChannels.append((id, channel))
            return id
        }
        return MessageChannelRegistration(channel: channel, hub: self, id: id)
    }

    /// How many `messages` sequences are registered (for tests).
    var messageChannelCount: Int { state.withLock { $0.messageChannels.count } }

    /// Forgets a `messages` sequence nobody holds any more.
    func removeMessageChannel(_ id: UInt64) {
        state.withLock { state in state.messageChannels.removeAll { $0.id == id } }
    }

    func makeStateStream() -> AsyncStream<MQTTConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MQTTConnectionState.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            let id = state.nextListenerID
            state.nextListenerID += 1
            state.stateListeners[id] = continuation
            // Under the lock, so no newer state overtakes it; safe there, since nothing can be
            // waiting on a stream not yet returned.
            continuation.yield(state.connection)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.stateListeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every `messages` sequence (after `disconnect()` or when the client goes away).
    func finishMessageStreams() {
        let channels = state.withLock { state in
            defer { state.messageChannels.removeAll() }
            return state.messageChannels
        }
        for listener in channels { listener.channel.finish() }
    }

    /// Ends every sequence (the client is gone).
    func finishAll() {
        finishMessageStreams()
        let listeners = state.withLock { state in
            defer { state.stateListeners.removeAll() }
            return Array(state.stateListeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    /// Records subscriptions so that they are restored after a reconnect.
    func addSubscriptions(_ filters: [(filter: String, qos: QoS)]) {
        state.withLock { state in
            for (filter, qos) in filters {
                if let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) {
                    state.subscriptions[index].qos = qos
                    state.subscriptions[index].acknowledged = false
                } else {
                    state.subscriptions.append(Subscription(filter: filter, qos: qos, acknowledged: false))
                }
            }
        }
    }

    /// Notes that the broker granted `filter`; returns how many attempts had failed before.
    @discardableResult
    func markAcknowledged(_ filter: String) -> Int {
        state.withLock { state in
            guard let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) else { return 0 }
            defer {
                state.subscriptions[index].acknowledged = true
                state.subscriptions[index].failures = 0
                state.subscriptions[index].retryAt = nil
            }
            return state.subscriptions[index].failures
        }
    }

    /// Notes that an attempt to subscribe to `filter` failed for `reason` (a SUBACK failure's
    /// ``MQTTReasonCode/name``, `no_answer`), counts it, and schedules the next attempt after
    /// `policy`'s backoff for the number of failures so far. Returns that number and the delay,
    /// or `nil` when the filter was unsubscribed meanwhile (nothing to retry, nothing counted).
    func subscriptionFailed(
        _ filter: String, reason: String, policy: MQTTReconnectPolicy, now: ContinuousClock.Instant = .now
    ) -> (failures: Int, retryIn: Duration)? {
        state.withLock { state in
            guard let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) else { return nil }
            state.subscriptionFailures[reason, default: 0] += 1
            state.subscriptions[index].acknowledged = false
            state.subscriptions[index].failures += 1
            let failures = state.subscriptions[index].failures
            let delay = policy.delay(forAttempt: failures)
            state.subscriptions[index].retryAt = now + delay
            if state.earliestRetry.map({ now + delay < $0 }) ?? true { state.earliestRetry = now + delay }
            return (failures, delay)
        }
    }

    /// The subscriptions whose retry is due at `now`; their schedule is cleared (the caller
    /// subscribes now, and a failure schedules the next one).
    func subscriptionsDue(now: ContinuousClock.Instant) -> [Subscription] {
        state.withLock { state in
            guard let earliest = state.earliestRetry, earliest <= now else { return [] }
            var due: [Subscription] = []
            var nextEarliest: ContinuousClock.Instant?
            for index in state.subscriptions.indices {
                guard let at = state.subscriptions[index].retryAt else { continue }
                guard at <= now else {
                    if nextEarliest.map({ at < $0 }) ?? true { nextEarliest = at }
                    continue
                }
                state.subscriptions[index].retryAt = nil
                due.append(state.subscriptions[index])
            }
            state.earliestRetry = nextEarliest
            return due
        }
    }

    /// When the earliest scheduled subscription retry is due (``subscriptionsDue(now:)``), or
    /// `nil` when none is scheduled: the session thread wakes for it.
    var nextSubscriptionRetry: ContinuousClock.Instant? {
        state.withLock { $0.earliestRetry }
    }

    /// The subscriptions to send on a new connection (every one when the broker kept no session,
    /// else those it has not granted); their retry schedules are cleared, as they go out now.
    func subscriptionsToRestore(sessionPresent: Bool) -> [Subscription] {
        state.withLock { state in
            var restore: [Subscription] = []
            for index in state.subscriptions.indices where !sessionPresent || !state.subscriptions[index].acknowledged {
                state.subscriptions[index].retryAt = nil
                restore.append(state.subscriptions[index])
            }
            return restore
        }
    }

    /// Failed subscription attempts by reason since the client was made.
    var subscriptionFailures: [String: Int] { state.withLock { $0.subscriptionFailures } }

    /// Forgets subscriptions.
    func removeSubscriptions(_ filters: [String]) {
        state.withLock { state in state.subscriptions.removeAll { filters.contains($0.filter) } }
    }

    var subscriptions: [Subscription] { state.withLock { $0.subscriptions } }
}
