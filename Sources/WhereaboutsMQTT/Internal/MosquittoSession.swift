import CMosquitto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Logging
internal import SystemSupport
internal import WhereaboutsCore
import Synchronization

/// One libmosquitto handle and the dedicated thread that drives it, from the first connect to
/// `mosquitto_destroy`.
///
/// Threads: the session's own thread makes every blocking call (connect, which may wait on DNS,
/// and the `poll` of its loop, `MosquittoSession+Loop.swift`) and receives every callback. Other threads only make libmosquitto's
/// non-blocking, thread-safe calls (publish, subscribe, unsubscribe, disconnect) through
/// `start(_:...)` ("Operations" below), which counts them in ``SessionState`` so that the handle
/// is neither reconnected nor destroyed under them. The operations, the callbacks and the thread's
/// loop share this file because they share `state`, which is private to it; making the handle
/// (`MosquittoSession+Setup.swift`) needs no state.
///
/// Lifetime: the thread's closure holds a strong reference to the session until after
/// `mosquitto_destroy`, so the unretained userdata pointer that callbacks receive is valid
/// whenever libmosquitto can call one, even after the owning `MQTTClient` is gone.
///
/// State: what other threads share with the session thread is one ``SessionState`` (an enum phase
/// and the waiters beside it) in a ``LockedState``, reached only through `withLock` and, on the
/// session thread, `wait(until:)`. The lock is never held while calling into libmosquitto, and
/// callbacks (which run with libmosquitto's internal mutexes held) take it only briefly, so there
/// is no lock-order cycle.
final class MosquittoSession: @unchecked Sendable {
    // @unchecked Sendable: `handle`, a C pointer, is used only on the session thread or inside a C
    // call that `state`'s lock admitted and counts (`SessionState.beginCall`); `packetsHandled` is
    // read and written only on the session thread (in libmosquitto's callbacks, which run there,
    // and in its loop); every other stored property is immutable and Sendable (`state` a
    // LockedState, `operationSerials` an Atomic, `wakeup` an eventfd).
    let configuration: MQTTConfiguration
    let logger: Logger
    let hub: ClientHub
    let id: UInt64
    let handle: OpaquePointer
    /// Whether a failed first connection is retried (`start()`) or ends the session (`connect()`).
    let retriesFirstConnection: Bool
    /// The shared state; see ``SessionState``.
    private let state = LockedState(SessionState())
    /// Numbers the operations (`perform`), so that a cancelled task finds its waiter. An atomic
    /// counter, not a field of `state`: the number is needed before the operation's first lock
    /// section, and an atomic increment costs less than another one (the thread sanitizer
    /// follows atomics).
    private let operationSerials = Atomic<UInt64>(0)
    /// Wakes the session thread from its `poll` when another thread queued a packet or asked it
    /// to stop (``SessionState/takeWakeRequest()``).
    let wakeup: SessionWakeup
    /// How many packets libmosquitto's callbacks have reported on the session thread (a message,
    /// an acknowledgement, a CONNACK): how the loop tells that `mosquitto_loop_read` completed a
    /// packet (`MosquittoSession+Loop.swift`). Session thread only.
    var packetsHandled: UInt64 = 0

    private init(
        handle: OpaquePointer, wakeup: SessionWakeup, id: UInt64, configuration: MQTTConfiguration, logger: Logger,
        hub: ClientHub, retriesFirstConnection: Bool
    ) {
        self.handle = handle
        self.wakeup = wakeup
        self.id = id
        self.configuration = configuration
        self.logger = logger
        self.hub = hub
        self.retriesFirstConnection = retriesFirstConnection
    }

    /// Creates the handle, configures it and starts the session thread, which connects.
    static func start(
        id: UInt64, configuration: MQTTConfiguration, logger: Logger, hub: ClientHub,
        retriesFirstConnection: Bool
    ) throws(MQTTError) -> MosquittoSession {
        let wakeup = try SessionWakeup()
        let handle = try makeHandle(configuration)
        let session = MosquittoSession(
            handle: handle, wakeup: wakeup, id: id, configuration: configuration, logger: logger, hub: hub,
            retriesFirstConnection: retriesFirstConnection)
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(session).toOpaque())
        session.installCallbacks()
        hub.setConnectionState(retriesFirstConnection ? .reconnecting(attempt: 0, lastError: nil) : .connecting, from: id)
        OwnThread.start(name: "whereabouts-mqtt") { session.run() }  // the closure keeps `session` alive until run() returns
        return session
    }

    // MARK: Handle access from other threads

    /// Waits (on the session thread) until no other thread is inside a counted C call, after
    /// taking the handle for connecting or, when `closing`, for good.
    func takeHandleExclusively(closing: Bool) {
        state.withLock { $0.takeHandle(closing: closing) }
        state.wait(until: \.handleIsIdle)
    }

    // MARK: Stop and wait

    /// Asks the session to disconnect and end; returns at once (never blocks on the thread).
    ///
    /// The session thread sends DISCONNECT itself (woken from its `poll`, or at the end of the
    /// pass it is in): calling
    /// `mosquitto_disconnect` from here would mark the connection disconnected while the thread
    /// may still read an incoming PUBLISH, which libmosquitto then treats as a protocol error and
    /// closes the socket without DISCONNECT, so the broker would publish the will.
    func requestStop(_ reason: MQTTDisconnectReason) {
        let wake = state.withLock { state in
            state.requestStop(reason)
            return state.takeWakeRequest()
        }
        if wake { wakeup.signal() }
    }

    /// Wakes the session thread if it waits in `poll`, so that it takes a deadline that another
    /// thread has just set outside `state` (a subscription retry) into its wait.
    func wakeForNewDeadline() {
        if state.withLock({ $0.takeWakeRequest() }) { wakeup.signal() }
    }

    /// How many operations wait for an acknowledgement.
    var pendingAcknowledgements: Int {
        state.withLock { $0.acks.waiters.count }
    }

    /// How many QoS > 0 publishes libmosquitto still holds on this connection after their caller
    /// gave up (``AckTable/held``).
    var publishesHeldAfterGiveUp: Int {
        state.withLock { $0.acks.held.count }
    }

    /// Whether the session has been asked to stop or has ended.
    var isStopping: Bool {
        state.withLock { $0.isStopping }
    }

    /// Waits until the session thread has destroyed the handle, at most `timeout`.
    func waitForExit(timeout: Duration) async {
        let waiterID = state.withLock { $0.makeWaiterID() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let registered = self.state.withLock { $0.addExitWaiter(waiterID, continuation) }
                    if !registered { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // Whoever lost the race: resume a still-registered exit waiter so its task ends.
            self.state.withLock { $0.removeExitWaiter(waiterID) }?.resume()
        }
    }

    /// Waits until the session is connected, it fails for good, or `connectTimeout` passes.
    func waitUntilConnected() async throws {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let waiterID = state.withLock { $0.makeWaiterID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let waiter = SessionState.ConnectWaiter(continuation: continuation, deadline: deadline)
                let (wait, wake) = state.withLock { state in
                    let wait = state.addConnectWaiter(waiterID, waiter)
                    // Its deadline is new: a waiting session thread must know it.
                    if case .registered = wait { return (wait, state.takeWakeRequest()) }
                    return (wait, false)
                }
                switch wait {
                case .connected: continuation.resume()
                case .failed(let error): continuation.resume(throwing: error)
                case .registered: if wake { wakeup.signal() }
                }
            }
        } onCancel: {
            state.withLock { $0.removeConnectWaiter(waiterID) }?.continuation.resume(throwing: CancellationError())
        }
    }
}

// MARK: Operations (any thread: the non-blocking calls, counted)

extension MosquittoSession {
    /// Runs one C call that returns a message id, then waits for that id's acknowledgement.
    ///
    /// The waiter is registered right after the C call returns; an acknowledgement that beat it
    /// is kept by the `AckTable` as an early one and claimed here, so no acknowledgement is lost
    /// and the session lock is never held across the C call. The operation's serial number links
    /// the task's cancellation to the waiter whichever comes first, without an object per call.
    func perform(
        _ operation: MQTTOperation, timeout: Duration, stillQueuedOnGiveUp: Bool, subject: String,
        _ call: (OpaquePointer, UnsafeMutablePointer<Int32>) -> Int32
    ) async throws -> Ack {
        let serial = operationSerials.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Ack, any Error>) in
                start(operation, timeout: timeout, stillQueuedOnGiveUp: stillQueuedOnGiveUp, subject: subject, serial: serial, continuation: continuation, call)
            }
        } onCancel: {
            // Finds nothing when the waiter is not registered yet: `start` then sees the
            // cancellation itself (the flag is set before this handler runs).
            state.withLock { $0.acks.cancel(serial: serial) }?.continuation.resume(throwing: CancellationError())
        }
    }

    private func start(
        _ operation: MQTTOperation, timeout: Duration, stillQueuedOnGiveUp: Bool, subject: String,
        serial: UInt64, continuation: UnsafeContinuation<Ack, any Error>,
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
        // A packet the call queued must also wake the session thread if it waits in `poll`
        // (`wake`): libmosquitto's own wake-up goes to a socket pair the loop does not watch.
        let (outcome, wake): (Result<Ack, any Error>?, Bool) = state.withLock { state in
            defer { state.acks.endCall() }
            if rc == MosquittoCode.success {
                let waiter = AckTable.Waiter(
                    continuation: continuation, operation: operation, timeout: timeout,
                    deadline: .now + timeout, stillQueuedOnGiveUp: stillQueuedOnGiveUp, serial: serial)
                return (state.acks.register(mid, waiter).map { .success($0) }, state.takeWakeRequest())
            }
            // A QoS>0 publish that found no connection is still queued by libmosquitto (it got
            // an id) and is resent after a reconnect: say so, and drop its late acknowledgement.
            let queued = rc == MosquittoCode.noConnection && stillQueuedOnGiveUp && mid != 0
            if queued { state.acks.abandon(mid) }
            return (.failure(MosquittoCode.operationError(rc, topic: subject, queued: queued)), false)
        }
        if wake { wakeup.signal() }

        if let outcome {
            continuation.resume(with: outcome)
        } else if Task.isCancelled {
            // Cancelled before the waiter was registered: the handler found nothing to cancel.
            // (If it ran after the registration it took the waiter, and this finds nothing.)
            state.withLock { $0.acks.cancel(mid, serial: serial) }?.continuation.resume(throwing: CancellationError())
        }
    }
}

// MARK: Callbacks (libmosquitto's thread)

/// The session behind libmosquitto's userdata pointer. Valid in every callback: the session
/// thread keeps the session alive until after `mosquitto_destroy`.
private func session(_ userdata: UnsafeMutableRawPointer?) -> MosquittoSession {
    guard let userdata else { preconditionFailure("libmosquitto called back without the session as its userdata") }
    return Unmanaged<MosquittoSession>.fromOpaque(userdata).takeUnretainedValue()
}

/// The session behind `userdata`, once it has counted the packet its callback reports: how the
/// loop tells that `mosquitto_loop_read` completed one (`packetsHandled`). Session thread only.
private func sessionCountingPacket(_ userdata: UnsafeMutableRawPointer?) -> MosquittoSession {
    let owner = session(userdata)
    owner.packetsHandled &+= 1
    return owner
}

extension MosquittoSession {
    /// Registers the C callbacks. They run on the session thread (inside `mosquitto_loop_read` or
    /// `mosquitto_loop_write`), except the log callback, which may also run on a thread calling publish or subscribe.
    func installCallbacks() {
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, flags, _ in
            sessionCountingPacket(userdata).didConnect(code: rc, sessionPresent: flags & 1 != 0)
        }
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reasonCode, _ in
            sessionCountingPacket(userdata).didAcknowledge(mid, .published(reasonCode: reasonCode))
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, userdata, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            sessionCountingPacket(userdata).didAcknowledge(mid, .subscribed(granted: codes))
        }
        mosquitto_unsubscribe_v5_callback_set(handle) { _, userdata, mid, _ in
            sessionCountingPacket(userdata).didAcknowledge(mid, .unsubscribed)
        }
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, _ in
            let owner = sessionCountingPacket(userdata)
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload = message.payload.map { Data(bytes: $0, count: Int(message.payloadlen)) } ?? Data()
            owner.hub.deliver(
                MQTTMessage(
                    topic: String(cString: topic), payload: payload,
                    qos: QoS(received: message.qos), retained: message.retain))
        }
        setLibraryLogging(true)
    }

    /// Turns libmosquitto's log callback on or off. libmosquitto formats a log line for every
    /// packet while a callback is set, which costs real throughput, so the session keeps it on
    /// only while connecting (where it carries the TLS error details) unless the logger wants
    /// trace output. Called on the session thread, or before it starts.
    func setLibraryLogging(_ enabled: Bool) {
        if enabled || logger.logLevel <= .trace {
            mosquitto_log_callback_set(handle) { _, userdata, level, text in
                guard let text else { return }
                session(userdata).didLog(level: level, text)
            }
        } else {
            mosquitto_log_callback_set(handle, nil)
        }
    }

    private func didConnect(code: Int32, sessionPresent: Bool) {
        guard code == 0 else {
            let refused = MQTTError.connectionRefused(
                MosquittoCode.refusal(code, sentCredentials: configuration.credentials != nil))
            state.withLock { $0.brokerRefused(refused) }
            let host = state.withLock { $0.endpoint }.map(\.description) ?? "\(configuration.host):\(configuration.port)"
            logger.info("MQTT broker refused the connection", metadata: ["whereabouts.mqtt.error": "\(refused)", "whereabouts.mqtt.host": "\(host)"])
            return
        }
        setLibraryLogging(false)
        state.withLock { $0.brokerAccepted() }
        restoreSubscriptions(sessionPresent: sessionPresent)
        logger.info(
            "MQTT connected",
            metadata: [
                "whereabouts.mqtt.host": "\(state.withLock { $0.endpoint }.map(\.description) ?? "\(configuration.host):\(configuration.port)")",
                "whereabouts.mqtt.session_present": "\(sessionPresent)",
            ])
        hub.setConnectionState(.connected(sessionPresent: sessionPresent), from: id)
        // Only now may `connect()` return: its callers read `state` right after.
        let waiters = state.withLock { $0.connectionAnnounced() }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// Subscribes again after a reconnect: everything when the broker kept no session, else only
    /// what the broker never granted. Each SUBACK is checked (``subscriptionAnswered(_:code:)``).
    private func restoreSubscriptions(sessionPresent: Bool) {
        for subscription in hub.subscriptionsToRestore(sessionPresent: sessionPresent) {
            sendSubscription(subscription)
        }
    }

    /// Subscribes again to the filters whose retry after a failure is due, and counts the
    /// SUBACKs that did not come in time as failures (each then scheduled for a retry). Runs on
    /// the session thread while connected.
    private func retrySubscriptions(now: ContinuousClock.Instant) {
        for filter in state.withLock({ $0.expireResubscriptions(now: now) }) {
            subscriptionUnanswered(filter, after: configuration.operationTimeout)
        }
        for subscription in hub.subscriptionsDue(now: now) {
            sendSubscription(subscription)
        }
    }

    /// Sends SUBSCRIBE for `subscription` from the session thread and registers its message id,
    /// so that its SUBACK is checked like that of `subscribe()`.
    private func sendSubscription(_ subscription: ClientHub.Subscription) {
        var mid: Int32 = 0
        let rc = mosquitto_subscribe_v5(handle, &mid, subscription.filter, Int32(subscription.qos.rawValue), 0, nil)
        if rc == MosquittoCode.success {
            // The SUBACK comes through this thread's loop, after this registration.
            let deadline = ContinuousClock.now + configuration.operationTimeout
            state.withLock { $0.resubscribing(mid, filter: subscription.filter, deadline: deadline) }
            logger.debug("MQTT resubscribing", metadata: ["whereabouts.mqtt.filter": "\(subscription.filter)"])
        } else {
            // Not sent (the connection went away meanwhile): the next connection restores it.
            logger.warning(
                "MQTT resubscription failed",
                metadata: ["whereabouts.mqtt.filter": "\(subscription.filter)", "whereabouts.mqtt.error": "\(MosquittoCode.text(rc))"])
        }
    }

    /// Queues the waiter of `mid` to be resumed after this pass of the loop
    /// (``SessionState/acknowledged(_:_:)``), or checks the SUBACK of a subscription this thread sent.
    private func didAcknowledge(_ mid: Int32, _ ack: Ack) {
        if case .subscribed(let granted) = ack, let filter = state.withLock({ $0.resubscribed(mid) }) {
            subscriptionAnswered(filter, code: granted.first)
            return
        }
        state.withLock { $0.acknowledged(mid, ack) }
    }

    private func didLog(level: Int32, _ text: UnsafePointer<CChar>) {
        if level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 {
            let message = String(cString: text)
            state.withLock { $0.libraryLogged(message) }
        }
        if logger.logLevel <= .trace { logger.trace("libmosquitto: \(String(cString: text))") }
    }
}

// MARK: The session thread

extension MosquittoSession {
    /// How long a stopping session drives the connection so that DISCONNECT (and what is
    /// queued before it) gets written, before it closes the socket regardless.
    static let disconnectGrace: Duration = .seconds(2)

    /// The session thread: connect, drive the connection, back off and reconnect, until stopped
    /// or failed; then destroy the handle.
    func run() {
        var attempt = 0
        var finalReason: MQTTDisconnectReason = .requested
        let endpoints = configuration.endpoints
        var next = 0  // the endpoint the next attempt goes to
        while true {
            if let reason = currentStopReason() {
                finalReason = reason
                break
            }
            let target = configuration.aimed(at: endpoints[next % endpoints.count])
            let (failure, wasConnected) = connectAndDrive(target)
            // A broker that failed or dropped the connection: the next attempt tries the next one.
            next += 1
            hub.wakeMessageConsumers()  // whatever the last pass delivered
            if let reason = currentStopReason() {
                finalReason = reason
                break
            }
            if wasConnected { attempt = 0 }
            let error = failure ?? .connectionLost(detail: "the connection ended")
            // Before the first connection, without background retries, each broker is tried once.
            let retry = wasConnected || state.withLock({ $0.everConnected })
                ? configuration.reconnect.enabled : retriesFirstConnection || next < endpoints.count
            guard retry else {
                finalReason = .failed(error)
                break
            }
            attempt += 1
            var metadata: Logger.Metadata = [
                "whereabouts.mqtt.attempt": "\(attempt)", "whereabouts.mqtt.error": "\(error)",
                "whereabouts.mqtt.host": "\(MQTTConfiguration.Endpoint(host: target.host, port: target.port))",
            ]
            if endpoints.count > 1 { metadata["whereabouts.mqtt.next_host"] = "\(endpoints[next % endpoints.count])" }
            logger.info("MQTT connection down, retrying", metadata: metadata)
            hub.setConnectionState(.reconnecting(attempt: attempt, lastError: error), from: id)
            backOff(for: configuration.reconnect.delay(forAttempt: attempt))
        }
        tearDown(finalReason)
    }

    func currentStopReason() -> MQTTDisconnectReason? {
        state.withLock { $0.stopReason }
    }

    /// Makes one connection attempt and drives it until it ends. Returns why it ended (`nil`
    /// when stopped on request) and whether the broker had accepted it.
    private func connectAndDrive(_ configuration: MQTTConfiguration) -> (MQTTError?, Bool) {
        takeHandleExclusively(closing: false)
        setLibraryLogging(true)
        state.withLock { $0.attemptStarted(at: MQTTConfiguration.Endpoint(host: configuration.host, port: configuration.port)) }
        let (rc, savedErrno) = connectOnce(configuration)
        let libraryError = state.withLock { state in
            state.handleReleased()
            return state.lastLibraryError
        }
        guard rc == MosquittoCode.success else {
            return (MosquittoCode.connectError(rc, savedErrno: savedErrno, configuration: configuration, libraryError: libraryError), false)
        }

        let connackDeadline = ContinuousClock.now + configuration.connectTimeout
        var disconnectDeadline: ContinuousClock.Instant?
        var firstUnwokenMessage: ContinuousClock.Instant?
        var nextSubscriptionCheck = ContinuousClock.now + Self.subscriptionCheckInterval
        var coalescing = AcknowledgementCoalescing(now: .now, delivered: hub.deliveredCount())
        // The operations acknowledged in a pass, resumed after it; kept to reuse its storage.
        var completed: [SessionState.Completion] = []
        defer { if coalescing.isOn { hub.noteCoalescing(false) } }
        // Read with the deadlines' sweep at the end of each pass (one lock section, not two).
        var stopRequested = currentStopReason() != nil
        // Whether the last pass stopped reading at its budget (`drivePass`): then no `poll` first.
        var socketMayHoldMore = false
        while true {
            if disconnectDeadline == nil, stopRequested {
                // Send DISCONNECT (so the broker does not publish the will) and write it at once,
                // before reading anything: libmosquitto rejects a PUBLISH that arrives once the
                // handle is marked disconnected by closing the socket without DISCONNECT.
                if mosquitto_disconnect(handle) == MosquittoCode.success {
                    mosquitto_loop_write(handle, 1)
                }
                disconnectDeadline = .now + Self.disconnectGrace
            }
            let pass = drivePass(
                wait: !socketMayHoldMore,
                willWait: {
                    let due = state.withLock { $0.sessionThreadWillWait() }
                    hub.notePollWait()
                    return pollTimeout(
                        due: due, lingering: firstUnwokenMessage != nil, coalescing: coalescing.isOn,
                        connackDeadline: connackDeadline, disconnectDeadline: disconnectDeadline,
                        nextSubscriptionCheck: nextSubscriptionCheck)
                },
                woke: { state.withLock { $0.sessionThreadWoke() } })
            let rc = pass.rc, loopErrno = pass.savedErrno
            socketMayHoldMore = pass.socketMayHoldMore
            // One clock reading per pass serves the wake-up, the coalescing rule and the deadlines.
            let now = ContinuousClock.now
            wakeMessageConsumersWhenDue(connectionFailed: rc != MosquittoCode.success, now: now, since: &firstUnwokenMessage)
            if configuration.coalescesAcknowledgementsDuringBursts, rc == MosquittoCode.success {
                adaptCoalescing(&coalescing, now: now)
            }
            stopRequested = sweepDeadlines(now: now, completing: &completed)
            if rc == MosquittoCode.success, now >= nextSubscriptionCheck {
                nextSubscriptionCheck = now + Self.subscriptionCheckInterval
                if state.withLock({ $0.isConnected }) { retrySubscriptions(now: now) }
            }
            if rc != MosquittoCode.success {
                let end = state.withLock { $0.connectionEnded() }
                let lost = MQTTError.connectionLost(detail: end.libraryError ?? MosquittoCode.text(rc))
                for waiter in end.dropped { waiter.continuation.resume(throwing: lost) }
                if disconnectDeadline != nil { return (nil, end.wasConnected) }
                if let refused = end.refusal { return (refused, false) }
                if !end.wasConnected {
                    return (MosquittoCode.failedBeforeConnack(rc, savedErrno: loopErrno, configuration: configuration, libraryError: end.libraryError), false)
                }
                logger.info("MQTT connection lost", metadata: ["whereabouts.mqtt.error": "\(lost)"])
                return (lost, true)
            }
            if let disconnectDeadline, now >= disconnectDeadline { return (nil, state.withLock { $0.everConnected }) }
            if now >= connackDeadline, !state.withLock({ $0.isConnected }) {
                return (.timedOut(.connect, after: configuration.connectTimeout, mayStillBeDelivered: false), false)
            }
        }
    }

    /// How often at most the session thread looks for subscriptions to retry and overdue SUBACKs
    /// (a lock section in each of two locks, not worth taking on every pass of a stream). It
    /// wakes for them only when one is scheduled (``pollTimeout(due:lingering:coalescing:connackDeadline:disconnectDeadline:nextSubscriptionCheck:)``).
    static let subscriptionCheckInterval = Duration.milliseconds(100)

    /// The loop's `poll` timeout while acknowledgements are coalesced (``AcknowledgementCoalescing``):
    /// the pass after a burst, at most this much later, turns `TCP_NODELAY` back on (which
    /// flushes the last acknowledgements), as the loop's fixed 100 ms timeout did before.
    static let coalescingCheckInterval = Duration.milliseconds(100)

    /// How long the session thread may wait in `poll` at most while connected: a quarter of the
    /// keepalive. libmosquitto sends PINGREQ only from `mosquitto_loop_misc`, called once per
    /// pass, once a keepalive has passed since it last wrote or read (lib/util_mosq.c
    /// `mosquitto__check_keepalive`, whole seconds of a monotonic clock); mosquitto drops a
    /// client silent for 1.5 keepalives. Waking every quarter keepalive sends PINGREQ at most
    /// 1.25 keepalives after the last packet out, and notices a missing PINGRESP (libmosquitto
    /// then closes the connection) at most 1.25 keepalives after the PINGREQ. With a half
    /// keepalive the PINGREQ could leave right at the broker's 1.5-keepalive limit.
    var keepAliveCheckInterval: Duration { configuration.keepAlive / 4 }

    /// The loop's `poll` timeout in milliseconds: until the earliest thing the session thread
    /// must do without another thread waking it. That is an operation's or a `connect()`
    /// caller's timeout, the CONNACK deadline before the broker answered, the disconnect grace
    /// while stopping, an overdue SUBACK or a subscription retry (not before the next
    /// subscription check is allowed), the pass that ends coalescing, and the keepalive
    /// (``keepAliveCheckInterval``). While received messages wait for their consumers to be
    /// woken (`lingering`), 1 ms, so that the wake-up follows within ``wakeLinger``. A packet to
    /// write, a stop request or a deadline that another thread sets meanwhile wakes the thread
    /// through `wakeup` (``SessionState/takeWakeRequest()``).
    ///
    /// Measured (2026-11-28, `voluntary_ctxt_switches` in `/proc/PID/task/*/status` of an idle
    /// `whereabouts-pub` with no fix, over 30 s, debug builds side by side): with the loop's
    /// former fixed 100 ms timeout each connection thread woke 9.5-9.8 times a second; with this
    /// timeout and the default 30 s keepalive 0.13-0.17 times (every 7.5 s, and for the
    /// PINGRESP). docs/mqtt.md, "The connection's loop"; docs/publisher.md, "Wake-ups of an idle
    /// device".
    private func pollTimeout(
        due: SessionState.Due, lingering: Bool, coalescing: Bool, connackDeadline: ContinuousClock.Instant,
        disconnectDeadline: ContinuousClock.Instant?, nextSubscriptionCheck: ContinuousClock.Instant
    ) -> Int32 {
        if lingering { return Self.lingerLoopTimeoutMilliseconds }
        let now = ContinuousClock.now
        var wakeAt = now + keepAliveCheckInterval
        func consider(_ deadline: ContinuousClock.Instant?) {
            if let deadline, deadline < wakeAt { wakeAt = deadline }
        }
        if coalescing { consider(now + Self.coalescingCheckInterval) }
        consider(due.expiry)
        consider(disconnectDeadline)
        if due.connected {
            // Both are handled only by the subscription check, which runs at most every
            // `subscriptionCheckInterval`: waking before it would find nothing to do, and again.
            consider(due.resubscription.map { max($0, nextSubscriptionCheck) })
            consider(hub.nextSubscriptionRetry.map { max($0, nextSubscriptionCheck) })
        } else {
            consider(connackDeadline)
        }
        return Self.milliseconds(from: now, to: wakeAt)
    }

    /// The whole milliseconds from `now` to `deadline`, rounded up (so that a wait does not end
    /// just before its deadline and the next one wait 0 ms), at least 1: whatever is due is
    /// handled at the end of the pass that follows, and a deadline the loop somehow failed to
    /// clear costs a wake-up a millisecond, not a spinning thread.
    static func milliseconds(from now: ContinuousClock.Instant, to deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - now).components
        guard seconds >= 0, attoseconds >= 0 else { return 1 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000).partialValue
            + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(1, milliseconds))
    }

    /// At most this many received messages wait in `messages` buffers before their consumers
    /// are woken.
    static let wakeBatchLimit = 256

    /// How long a received message may wait for more to batch with before its waiting consumers
    /// are woken: 1 ms.
    static let wakeLinger = Duration.milliseconds(1)

    /// The loop's `poll` timeout while messages wait for their consumers to be woken.
    static let lingerLoopTimeoutMilliseconds: Int32 = 1

    /// Wakes waiting `messages` consumers once the first message delivered since they were last
    /// woken has waited ``wakeLinger``, or ``wakeBatchLimit`` messages are waiting, or the
    /// connection failed. Meanwhile the loop goes on reading (with a 1 ms timeout), so a stream
    /// costs the consumer one resumption (a thread wake-up) per millisecond or per 256 messages
    /// instead of one every message or two, without a system call of its own, and a lone message
    /// is handed over about 1 ms after it arrived. Does nothing while the consumers are busy
    /// rather than waiting (they find the messages themselves). `firstUnwoken` is the session
    /// thread's record of when the first unwoken message was delivered.
    private func wakeMessageConsumersWhenDue(
        connectionFailed: Bool, now: ContinuousClock.Instant, since firstUnwoken: inout ContinuousClock.Instant?
    ) {
        let unwoken = hub.messagesAwaitingWakeup()
        guard unwoken > 0 else {
            firstUnwoken = nil
            return
        }
        let first = firstUnwoken ?? now
        firstUnwoken = first
        if unwoken < Self.wakeBatchLimit, !connectionFailed, now - first < Self.wakeLinger { return }
        firstUnwoken = nil
        hub.wakeMessageConsumers()
    }

    /// Applies the next decision of `state` (``AcknowledgementCoalescing``) to the socket:
    /// Nagle's algorithm on for a burst, `TCP_NODELAY` (which also flushes) after it.
    private func adaptCoalescing(_ state: inout AcknowledgementCoalescing, now: ContinuousClock.Instant) {
        guard let coalesce = state.update(now: now, delivered: hub.deliveredCount) else { return }
        _ = whereabouts_set_tcp_nodelay(mosquitto_socket(handle), coalesce ? 0 : 1)
        hub.noteCoalescing(coalesce)
    }

    /// Calls `mosquitto_connect_bind_v5` (blocking: DNS and TCP connect) with the CONNECT
    /// properties; returns the result code and `errno` right after.
    private func connectOnce(_ configuration: MQTTConfiguration) -> (Int32, Int32) {
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if configuration.protocolVersion == .v5 && !configuration.cleanSession {
            let seconds = UInt32(clamping: Int64(configuration.sessionExpiry.seconds.rounded()))
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), seconds)
        }
        let keepAlive = Int32(configuration.keepAlive.seconds.rounded())
        let rc = mosquitto_connect_bind_v5(handle, configuration.host, Int32(configuration.port), keepAlive, nil, properties)
        return (rc, errno)
    }

    /// Waits `delay` before the next attempt, waking early to stop and to expire operations (at
    /// their timeout, not on a fixed tick: an offline device backs off for minutes).
    private func backOff(for delay: Duration) {
        let wakeAt = ContinuousClock.now + delay
        var completed: [SessionState.Completion] = []
        while ContinuousClock.now < wakeAt {
            let expiry = state.withLock { $0.nextExpiry }
            let until = expiry.map { min($0, wakeAt) } ?? wakeAt
            // Every lock section of `state` wakes this wait to check again (`LockedState`), so an
            // operation or a `connect()` caller that registers an earlier deadline ends it too.
            let changed = state.wait(until: { $0.stopReason != nil || $0.nextExpiry != expiry }, deadline: until)
            if changed, currentStopReason() != nil { return }
            sweepDeadlines(completing: &completed)
        }
    }

    /// Resumes the operations acknowledged since the last sweep (in the order of their
    /// acknowledgements), then fails the operations and connect waiters whose timeout has
    /// passed; returns whether the session has been asked to stop (read in the same lock
    /// section). `completed` is the session thread's buffer for the acknowledged ones, empty
    /// before and after.
    @discardableResult
    func sweepDeadlines(now: ContinuousClock.Instant = .now, completing completed: inout [SessionState.Completion]) -> Bool {
        let (expired, expiredConnects, stopping) = state.withLock { state in
            state.takeCompletions(into: &completed)
            let (operations, connects) = state.expire(now: now)
            return (operations, connects, state.stopReason != nil)
        }
        for completion in completed { completion.continuation.resume(returning: completion.ack) }
        completed.removeAll(keepingCapacity: completed.capacity <= 1024)
        for waiter in expired {
            waiter.continuation.resume(
                throwing: MQTTError.timedOut(waiter.operation, after: waiter.timeout, mayStillBeDelivered: waiter.stillQueuedOnGiveUp))
        }
        for waiter in expiredConnects {
            waiter.continuation.resume(
                throwing: MQTTError.timedOut(.connect, after: configuration.connectTimeout, mayStillBeDelivered: false))
        }
        return stopping
    }

    /// Destroys the handle once no other thread uses it, then fails whatever still waits.
    private func tearDown(_ reason: MQTTDisconnectReason) {
        takeHandleExclusively(closing: true)
        mosquitto_destroy(handle)
        let leftovers = state.withLock { $0.finished(reason) }

        logger.info("MQTT client stopped", metadata: ["whereabouts.mqtt.reason": "\(reason)"])
        hub.setConnectionState(.disconnected(reason), from: id)
        let connectError: MQTTError = if case .failed(let error) = reason { error } else { .clientClosed }
        for completion in leftovers.completions { completion.continuation.resume(returning: completion.ack) }
        for waiter in leftovers.operations { waiter.continuation.resume(throwing: MQTTError.clientClosed) }
        for waiter in leftovers.connects { waiter.continuation.resume(throwing: connectError) }
        for exit in leftovers.exits { exit.resume() }
    }
}
