import CMosquitto
import Foundation
import Logging

extension MosquittoSession {
    /// How long a stopping session drives the connection so that DISCONNECT (and what is
    /// queued before it) gets written, before it closes the socket regardless.
    static let disconnectGrace: Duration = .seconds(2)

    /// The session thread: connect, drive the connection, back off and reconnect, until stopped
    /// or failed; then destroy the handle.
    func run() {
        var attempt = 0
        var finalReason: MQTTDisconnectReason = .requested
        while true {
            if let reason = currentStopReason() {
                finalReason = reason
                break
            }
            let (failure, wasConnected) = connectAndDrive()
            hub.wakeMessageConsumers()  // whatever the last pass delivered
            if let reason = currentStopReason() {
                finalReason = reason
                break
            }
            if wasConnected { attempt = 0 }
            let error = failure ?? .connectionLost(detail: "the connection ended")
            let retry = wasConnected || state.withLock({ $0.everConnected }) ? configuration.reconnect.enabled : retriesFirstConnection
            guard retry else {
                finalReason = .failed(error)
                break
            }
            attempt += 1
            logger.info(
                "MQTT connection down, retrying",
                metadata: ["whereabouts.mqtt.attempt": "\(attempt)", "whereabouts.mqtt.error": "\(error)"])
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
    private func connectAndDrive() -> (MQTTError?, Bool) {
        takeHandleExclusively(closing: false)
        setLibraryLogging(true)
        state.withLock { $0.attemptStarted() }
        let (rc, savedErrno) = connectOnce()
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
        var coalescing = AcknowledgementCoalescing(now: .now, delivered: hub.deliveredCount())
        defer { if coalescing.isOn { hub.noteCoalescing(false) } }
        while true {
            if disconnectDeadline == nil, currentStopReason() != nil {
                // Send DISCONNECT (so the broker does not publish the will) and write it at once,
                // before reading anything: libmosquitto rejects a PUBLISH that arrives once the
                // handle is marked disconnected by closing the socket without DISCONNECT.
                if mosquitto_disconnect(handle) == MosquittoCode.success {
                    mosquitto_loop_write(handle, 1)
                }
                disconnectDeadline = .now + Self.disconnectGrace
            }
            // While received messages wait for their consumers to be woken, the loop waits at
            // most a millisecond for more, so that the wake-up follows within ``wakeLinger``.
            let timeout = firstUnwokenMessage == nil ? Self.loopTimeoutMilliseconds : Self.lingerLoopTimeoutMilliseconds
            let rc = mosquitto_loop(handle, timeout, 1)
            let loopErrno = errno
            // One clock reading per pass serves the wake-up, the coalescing rule and the deadlines.
            let now = ContinuousClock.now
            wakeMessageConsumersWhenDue(connectionFailed: rc != MosquittoCode.success, now: now, since: &firstUnwokenMessage)
            if configuration.coalescesAcknowledgementsDuringBursts, rc == MosquittoCode.success {
                adaptCoalescing(&coalescing, now: now)
            }
            sweepDeadlines(now: now)
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

    /// At most this many received messages wait in `messages` buffers before their consumers
    /// are woken.
    static let wakeBatchLimit = 256

    /// How long a received message may wait for more to batch with before its waiting consumers
    /// are woken: 1 ms.
    static let wakeLinger = Duration.milliseconds(1)

    /// `mosquitto_loop`'s timeout while messages wait for their consumers to be woken.
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
    private func connectOnce() -> (Int32, Int32) {
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

    /// Waits `delay` before the next attempt, waking early to stop and to expire operations.
    private func backOff(for delay: Duration) {
        let wakeAt = ContinuousClock.now + delay
        while ContinuousClock.now < wakeAt {
            let slice = min(wakeAt, ContinuousClock.now + .milliseconds(Int(Self.loopTimeoutMilliseconds)))
            if state.wait(until: { $0.stopReason != nil }, deadline: slice) { return }
            sweepDeadlines()
        }
    }

    /// Fails the operations and connect waiters whose timeout has passed.
    func sweepDeadlines(now: ContinuousClock.Instant = .now) {
        let (expired, expiredConnects) = state.withLock { $0.expire(now: now) }
        for waiter in expired {
            waiter.continuation.resume(
                throwing: MQTTError.timedOut(waiter.operation, after: waiter.timeout, mayStillBeDelivered: waiter.stillQueuedOnGiveUp))
        }
        for waiter in expiredConnects {
            waiter.continuation.resume(
                throwing: MQTTError.timedOut(.connect, after: configuration.connectTimeout, mayStillBeDelivered: false))
        }
    }

    /// Destroys the handle once no other thread uses it, then fails whatever still waits.
    private func tearDown(_ reason: MQTTDisconnectReason) {
        takeHandleExclusively(closing: true)
        mosquitto_destroy(handle)
        let leftovers = state.withLock { $0.finished(reason) }

        logger.info("MQTT client stopped", metadata: ["whereabouts.mqtt.reason": "\(reason)"])
        hub.setConnectionState(.disconnected(reason), from: id)
        let connectError: MQTTError = if case .failed(let error) = reason { error } else { .clientClosed }
        for waiter in leftovers.operations { waiter.continuation.resume(throwing: MQTTError.clientClosed) }
        for waiter in leftovers.connects { waiter.continuation.resume(throwing: connectError) }
        for exit in leftovers.exits { exit.resume() }
    }
}
