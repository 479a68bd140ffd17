import CMosquitto
import Foundation
import Logging

/// One libmosquitto handle and the dedicated thread that drives it, from the first connect to
/// `mosquitto_destroy`.
///
/// Threads: the session's own thread makes every blocking call (connect, which may wait on DNS,
/// and `mosquitto_loop`) and receives every callback. Other threads only make libmosquitto's
/// non-blocking, thread-safe calls (publish, subscribe, unsubscribe, disconnect) through
/// `start(_:...)` (`MosquittoSession+Operations.swift`), which counts them in `activeCalls` so that
/// the handle is neither reconnected nor destroyed under them.
///
/// Lifetime: the thread's closure holds a strong reference to the session until after
/// `mosquitto_destroy`, so the unretained userdata pointer that callbacks receive is valid
/// whenever libmosquitto can call one, even after the owning `MQTTClient` is gone.
///
/// Lock order: `lock` is never held while calling into libmosquitto, and callbacks (which run
/// with libmosquitto's internal mutexes held) take `lock` only briefly, so there is no cycle.
final class MosquittoSession: @unchecked Sendable {
    // @unchecked Sendable: every `var` below is read and written only with `lock` held;
    // `handle` is immutable and used only on the session thread or by a C call counted in `activeCalls`.
    let configuration: MQTTConfiguration
    let logger: Logger
    let hub: ClientHub
    let id: UInt64
    let handle: OpaquePointer
    /// Whether a failed first connection is retried (`start()`) or ends the session (`connect()`).
    let retriesFirstConnection: Bool

    let lock = NSCondition()
    var acks = AckTable()
    var activeCalls = 0
    /// The session thread has exclusive use of the handle (connecting) or has not connected yet.
    var handleBusy = true
    /// The handle is destroyed or about to be: no more C calls.
    var closed = false
    var stopReason: MQTTDisconnectReason?
    var isConnected = false
    /// Connected and `.connected` already announced through the hub: from then on `connect()`
    /// returns at once, so a caller never sees it return while `state` still says connecting.
    var connectionAnnounced = false
    var everConnected = false
    var connectWaiters: [UInt64: ConnectWaiter] = [:]
    var nextWaiterID: UInt64 = 0
    var exitWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var finished = false
    /// Why the session ended, once `finished`.
    var endReason: MQTTDisconnectReason?
    /// The broker's refusal from the last CONNACK, if it refused.
    var refusal: MQTTError?
    /// The last error libmosquitto logged (TLS details come only this way).
    var lastLibraryError: String?

    struct ConnectWaiter {
        let continuation: CheckedContinuation<Void, any Error>
        let deadline: ContinuousClock.Instant
    }

    /// The longest `mosquitto_loop` waits for the socket before checking for stop and timeouts.
    static let loopTimeoutMilliseconds: Int32 = 100

    private init(
        handle: OpaquePointer, id: UInt64, configuration: MQTTConfiguration, logger: Logger,
        hub: ClientHub, retriesFirstConnection: Bool
    ) {
        self.handle = handle
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
        let handle = try makeHandle(configuration)
        let session = MosquittoSession(
            handle: handle, id: id, configuration: configuration, logger: logger, hub: hub,
            retriesFirstConnection: retriesFirstConnection)
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(session).toOpaque())
        session.installCallbacks()
        hub.setConnectionState(retriesFirstConnection ? .reconnecting(attempt: 0, lastError: nil) : .connecting, from: id)
        let thread = Thread { session.run() }  // the closure keeps `session` alive until run() returns
        thread.name = "whereabouts-mqtt"
        thread.start()
        return session
    }

    // MARK: Handle access from other threads

    /// Waits (on the session thread) until no other thread is inside a counted C call.
    func takeHandleExclusively(closing: Bool) {
        lock.lock()
        handleBusy = true
        if closing { closed = true }
        while activeCalls > 0 { lock.wait() }
        lock.unlock()
    }

    // MARK: Stop and wait

    /// Asks the session to disconnect and end; returns at once (never blocks on the thread).
    ///
    /// The session thread sends DISCONNECT itself (within `loopTimeoutMilliseconds`): calling
    /// `mosquitto_disconnect` from here would mark the connection disconnected while the thread
    /// may still read an incoming PUBLISH, which libmosquitto then treats as a protocol error and
    /// closes the socket without DISCONNECT, so the broker would publish the will.
    func requestStop(_ reason: MQTTDisconnectReason) {
        lock.lock()
        if stopReason == nil { stopReason = reason }
        lock.broadcast()
        lock.unlock()
    }

    /// How many operations wait for an acknowledgement.
    var pendingAcknowledgements: Int {
        lock.lock()
        defer { lock.unlock() }
        return acks.waiters.count
    }

    /// Whether the session has been asked to stop or has ended.
    var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopReason != nil || finished
    }

    /// Waits until the session thread has destroyed the handle, at most `timeout`.
    func waitForExit(timeout: Duration) async {
        let waiterID: UInt64? = {
            lock.lock()
            defer { lock.unlock() }
            if finished { return nil }
            nextWaiterID += 1
            return nextWaiterID
        }()
        guard let waiterID else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.lock.lock()
                    if self.finished {
                        self.lock.unlock()
                        continuation.resume()
                    } else {
                        self.exitWaiters[waiterID] = continuation
                        self.lock.unlock()
                    }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // Whoever lost the race: resume a still-registered exit waiter so its task ends.
            self.removeExitWaiter(waiterID)?.resume()
        }
    }

    private func removeExitWaiter(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
        lock.lock()
        defer { lock.unlock() }
        return exitWaiters.removeValue(forKey: id)
    }

    /// Waits until the session is connected, it fails for good, or `connectTimeout` passes.
    func waitUntilConnected() async throws {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let waiterID: UInt64 = {
            lock.lock()
            defer { lock.unlock() }
            nextWaiterID += 1
            return nextWaiterID
        }()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if connectionAnnounced {
                    lock.unlock()
                    continuation.resume()
                } else if finished || stopReason != nil {
                    let error: MQTTError = if case .failed(let error) = endReason { error } else { .clientClosed }
                    lock.unlock()
                    continuation.resume(throwing: error)
                } else {
                    connectWaiters[waiterID] = ConnectWaiter(continuation: continuation, deadline: deadline)
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let waiter = connectWaiters.removeValue(forKey: waiterID)
            lock.unlock()
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
