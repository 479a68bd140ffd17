import ServiceLifecycle

/// Publishes every view again when one of the subscriber's publishing connections (NATS:
/// ``PublishingConnections``) is back after losing its connection. A NATS node acknowledges a
/// retained QoS 1 view before its streams store it (docs/cluster.md): when the node dies right
/// after, the view is gone from the cluster, and a circle whose members then stay still would
/// keep an older retained view. Publishing the newest view of every circle again closes that
/// (a reader sees the same view twice at worst). It does so again ``laterRounds`` after the
/// reconnect: while the cluster elects new stream leaders after a node loss, a retained view
/// published over any connection may not be stored, and the subscriber cannot tell (a QoS 0
/// publish has no answer; NATS sends a QoS 1 PUBACK before the store). Our reading of a
/// LoadBenchmark run with a node killed, where the view watcher, back after 10 s, never saw the
/// views of 17 reports made in those seconds; not proven. With mosquitto there are no such
/// connections and this service only waits for shutdown.
struct ViewsAfterReconnect: Service {
    let publishing: PublishingConnections
    let store: CircleViewStore

    /// When the views go out again after a reconnect, counted from the reconnect (and at once).
    static let laterRounds: [Duration] = [.seconds(10), .seconds(30)]

    func run() async throws {
        let store = self.store
        await cancelWhenGracefulShutdown {
            await publishing.whenPublishingReconnects {
                await store.republishAll()
                var waited = Duration.zero
                for round in Self.laterRounds {
                    try? await Task.sleep(for: round - waited)
                    waited = round
                    if Task.isCancelled { return }
                    await store.republishAll()
                }
            }
            // No publishing connections (mosquitto): nothing to watch until shutdown.
            try? await gracefulShutdown()
        }
    }
}
