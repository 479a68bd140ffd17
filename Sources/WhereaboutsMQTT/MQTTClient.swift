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

/// An MQTT 3.1.1 / 5 client over libmosquitto, safe to share between tasks.
///
/// ```swift
/// let client = MQTTClient(configuration: MQTTConfiguration(host: "broker", port: 1883), logger: logger)
/// try await client.withConnection { client in
///     let messages = client.messages
///     try await client.subscribe(to: [("owntracks/#", .atLeastOnce)])
///     try await client.publish(to: "owntracks/ann/phone", payload: json, qos: .atLeastOnce, retain: true)
///     for await message in messages { ... }
/// }
/// ```
///
/// One dedicated thread per connection makes every blocking libmosquitto call (connecting,
/// which may wait on DNS, and the network loop) and receives its callbacks; no libmosquitto
/// call blocks the Swift concurrency pool. After an established connection is lost, the client
/// reconnects with capped exponential backoff and jitter (`MQTTConfiguration.reconnect`),
/// restores its subscriptions, and libmosquitto resends the QoS 1/2 messages it still holds.
///
/// Releasing the client while connected is safe: the connection thread disconnects and destroys
/// its handle on its own, and no callback outlives the memory it uses.
public final class MQTTClient: Sendable {
    /// The configuration the client connects with.
    public let configuration: MQTTConfiguration
    let logger: Logger
    let hub = ClientHub()
    /// The current connection, if `connect()` or `start()` created one.
    private let current = LockedState<MosquittoSession?>(nil)

    /// Creates a client; nothing connects until `connect()` or `start()`.
    public init(configuration: MQTTConfiguration = MQTTConfiguration(), logger: Logger) {
        self.configuration = configuration
        var logger = logger
        if !configuration.clientID.isEmpty { logger[metadataKey: "whereabouts.mqtt.client_id"] = "\(configuration.clientID)" }
        self.logger = logger
    }

    deinit {
        current.withLock { $0 }?.requestStop(.released)
        hub.finishAll()
    }

    /// The connection state right now.
    public var state: MQTTConnectionState { hub.connectionState }

    /// The connection state, now and at every change, for as long as the client exists.
    public var stateUpdates: MQTTConnectionStates { MQTTConnectionStates(stream: hub.makeStateStream()) }

    /// Every message received on the client's subscriptions from now on.
    ///
    /// Each access makes a new sequence that buffers messages until iterated, so take it before
    /// subscribing to catch retained messages: `let messages = client.messages` then
    /// `subscribe(to:)`. The sequence ends after `disconnect()` or when the client is released;
    /// it continues across automatic reconnects.
    public var messages: MQTTMessages { MQTTMessages(registration: hub.makeMessageChannel()) }

    /// Connects and returns once the broker has accepted the connection.
    ///
    /// If this first attempt fails, the client stops and the error is thrown: `MQTTError`
    /// `.connectionRefused` (bad credentials, not authorised ...), `.dnsFailure`,
    /// `.connectionFailed`, `.tlsFailure`, `.timedOut` or `.invalidArgument`. Once connected, a
    /// lost connection is re-established automatically. Calling it while already connected
    /// returns at once; while reconnecting it waits for the connection (at most
    /// `connectTimeout`).
    public func connect() async throws {
        let session = try session(retryingFirstConnection: false)
        try await session.waitUntilConnected()
    }

    /// Starts connecting in the background and returns at once; failed attempts, including the
    /// first, are retried with backoff until `disconnect()`. Watch `state` or `stateUpdates`.
    /// Meant for devices that must keep working while the broker is unreachable.
    public func start() throws {
        _ = try session(retryingFirstConnection: true)
    }

    private func session(retryingFirstConnection: Bool) throws(MQTTError) -> MosquittoSession {
        try current.withLock { (current: inout MosquittoSession?) throws(MQTTError) -> MosquittoSession in
            if let existing = current, !existing.isStopping { return existing }
            let session = try MosquittoSession.start(
                id: hub.makeCurrentSession(), configuration: configuration, logger: logger, hub: hub,
                retriesFirstConnection: retryingFirstConnection)
            current = session
            return session
        }
    }

    /// Sends DISCONNECT (so the broker does not publish the will), stops reconnecting, ends
    /// `messages` sequences, and returns once the connection is closed (at most a few seconds,
    /// even if the network hangs). Operations still waiting fail with `MQTTError.clientClosed`;
    /// QoS>0 messages not yet acknowledged are dropped with the connection.
    public func disconnect() async {
        let session = current.withLock { current in
            defer { current = nil }
            return current
        }
        guard let session else { return }
        session.requestStop(.requested)
        await session.waitForExit(timeout: .seconds(5))
        hub.finishMessageStreams()
    }

    /// Connects, runs `body`, and disconnects whether `body` returns or throws.
    package func withConnection<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (MQTTClient) async throws -> T
    ) async throws -> T {
        try await connect()
        do {
            let result = try await body(self)
            await disconnect()
            return result
        } catch {
            await disconnect()
            throw error
        }
    }

    /// Whether the connection coalesces its acknowledgements right now, and how many bursts made
    /// it start to (``MQTTConfiguration/coalescesAcknowledgementsDuringBursts``; for tests).
    var acknowledgementCoalescing: (isOn: Bool, periods: Int) { hub.coalescing }

    /// How many times a packet queued while the connection's thread waited in `poll` (a publish,
    /// a subscription) was written only once that wait had timed out: a lost wake-up (for tests).
    var writesAfterTimeout: Int { hub.writesAfterTimeout }

    /// How many times the connection's thread has waited in `poll` since the client was made:
    /// an upper bound on its wake-ups (for tests that the thread sleeps while idle).
    var pollWaitCount: Int { hub.pollWaitCount }

    /// How many operations wait for an acknowledgement right now (for tests).
    var pendingAcknowledgements: Int {
        guard let session = current.withLock({ $0 }) else { return 0 }
        return session.pendingAcknowledgements
    }

    /// The session operations go through, or `notConnected` when there is none.
    func activeSession() throws(MQTTError) -> MosquittoSession {
        guard let session = current.withLock({ $0 }) else { throw .notConnected(mayStillBeDelivered: false) }
        return session
    }
}
