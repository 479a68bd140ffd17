import CMosquitto
import Foundation
import Logging
internal import WhereaboutsCore

/// One libmosquitto handle and the dedicated thread that drives it, from the first connect to
/// `mosquitto_destroy`.
///
/// Threads: the session's own thread makes every blocking call (connect, which may wait on DNS,
/// and `mosquitto_loop`) and receives every callback. Other threads only make libmosquitto's
/// non-blocking, thread-safe calls (publish, subscribe, unsubscribe, disconnect) through
/// `start(_:...)` (`MosquittoSession+Operations.swift`), which counts them in ``SessionState`` so that
/// the handle is neither reconnected nor destroyed under them.
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
    // call that `state`'s lock admitted and counts (`SessionState.beginCall`); every other stored
    // property is immutable and Sendable.
    let configuration: MQTTConfiguration
    let logger: Logger
    let hub: ClientHub
    let id: UInt64
    let handle: OpaquePointer
    /// Whether a failed first connection is retried (`start()`) or ends the session (`connect()`).
    let retriesFirstConnection: Bool
    /// The shared state; see ``SessionState``.
    let state = LockedState(SessionState())

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

    /// Waits (on the session thread) until no other thread is inside a counted C call, after
    /// taking the handle for connecting or, when `closing`, for good.
    func takeHandleExclusively(closing: Bool) {
        state.withLock { $0.takeHandle(closing: closing) }
        state.wait(until: \.handleIsIdle)
    }

    // MARK: Stop and wait

    /// Asks the session to disconnect and end; returns at once (never blocks on the thread).
    ///
    /// The session thread sends DISCONNECT itself (within `loopTimeoutMilliseconds`): calling
    /// `mosquitto_disconnect` from here would mark the connection disconnected while the thread
    /// may still read an incoming PUBLISH, which libmosquitto then treats as a protocol error and
    /// closes the socket without DISCONNECT, so the broker would publish the will.
    func requestStop(_ reason: MQTTDisconnectReason) {
        state.withLock { $0.requestStop(reason) }
    }

    /// How many operations wait for an acknowledgement.
    var pendingAcknowledgements: Int {
        state.withLock { $0.acks.waiters.count }
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
                switch state.withLock({ $0.addConnectWaiter(waiterID, waiter) }) {
                case .connected: continuation.resume()
                case .failed(let error): continuation.resume(throwing: error)
                case .registered: break
                }
            }
        } onCancel: {
            state.withLock { $0.removeConnectWaiter(waiterID) }?.continuation.resume(throwing: CancellationError())
        }
    }
}
