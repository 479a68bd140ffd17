import Logging
import ServiceLifecycle
import WhereaboutsMQTT

/// Stops taking messages from the broker while the history cannot be written (a full disk, a
/// damaged file), and takes them again once it can: the broker queues QoS 1 messages for the
/// subscriber's persistent session meanwhile, instead of the subscriber holding them in memory
/// where a kill -9 would lose them.
///
/// Watches ``HistoryStore/writabilityChanges()`` (the writer retries a failed batch every second,
/// so a return of space is seen within about a second) and suspends the client
/// (``MQTTClient/suspend()``: DISCONNECT, the session kept) or starts it again (subscriptions
/// restored, the queue delivered). It acts only once the subscriber's first subscriptions were
/// acknowledged (``subscribed()``), so a full disk at start still lets the views fill from the
/// retained messages first. Runs in the subscriber's service group, after the history writer.
struct HistoryIntakeGate: Service {
    let client: MQTTClient
    let store: HistoryStore
    let logger: Logger
    private let subscribedSignal: AsyncStream<Void>
    private let subscribedContinuation: AsyncStream<Void>.Continuation

    /// Creates the gate for `client`, watching `store`.
    package init(client: MQTTClient, store: HistoryStore, logger: Logger) {
        self.client = client
        self.store = store
        self.logger = logger
        (subscribedSignal, subscribedContinuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Tells the gate the subscriber's subscriptions are in place: from now on it may suspend.
    package func subscribed() {
        subscribedContinuation.yield()
    }

    /// Suspends and resumes the client until graceful shutdown or cancellation.
    package func run() async {
        for await _ in subscribedSignal.cancelOnGracefulShutdown() { break }
        await withTaskGroup(of: Void.self) { group in
            // A store that could not even open (a full disk at start) is tried again every
            // second: with no rows waiting, no retried write would notice the space coming back.
            // Once it is writable it is open, and stays open (the file is never closed while the
            // subscriber runs): then nothing is left to try and the task ends, so an idle
            // subscriber is not woken every second for it.
            group.addTask {
                while !Task.isCancelled, !store.isWritable {
                    try? await Task.sleep(for: .seconds(1))
                    store.openIfClosed()
                }
            }
            await follow()
            group.cancelAll()
        }
    }

    private func follow() async {
        var paused = false
        for await writable in store.writabilityChanges().cancelOnGracefulShutdown() {
            if !writable, !paused {
                paused = true
                logger.warning(
                    "History cannot be written: stopped taking messages from the broker, which queues them for this persistent session.",
                    metadata: ["whereabouts.history.path": "\(store.path)"])
                await client.suspend()
            } else if writable, paused {
                do {
                    try client.start()
                    paused = false
                    logger.notice("History is written again: taking messages from the broker again.",
                                  metadata: ["whereabouts.history.path": "\(store.path)"])
                } catch {
                    logger.error("Could not reconnect to the broker after the history pause.", metadata: ["whereabouts.error": "\(error)"])
                }
            }
        }
    }
}
