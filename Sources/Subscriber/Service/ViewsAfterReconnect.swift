import ServiceLifecycle

/// Publishes every view again when one of the subscriber's publishing connections (NATS:
/// ``PublishingConnections``) is back after losing its connection. A NATS node acknowledges a
/// retained QoS 1 view before its streams store it (docs/cluster.md): when the node dies right
/// after, the view is gone from the cluster, and a circle whose members then stay still would
/// keep an older retained view. Publishing the newest view of every circle again closes that
/// (a reader sees the same view twice at worst). With mosquitto there are no such connections
/// and this service only waits for shutdown.
struct ViewsAfterReconnect: Service {
    let publishing: PublishingConnections
    let store: CircleViewStore

    func run() async throws {
        let store = self.store
        await cancelWhenGracefulShutdown {
            await publishing.whenPublishingReconnects { await store.republishAll() }
            // No publishing connections (mosquitto): nothing to watch until shutdown.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
    }
}
