import ServiceLifecycle
import WhereaboutsMQTT

/// The subscriber's MQTT connection as a service: first in the group, so it is stopped last; on
/// graceful shutdown it disconnects cleanly (DISCONNECT: no will, the persistent session kept).
struct MQTTConnectionService: Service {
    let client: MQTTClient

    /// Waits for graceful shutdown (or cancellation), then disconnects.
    func run() async throws {
        try? await gracefulShutdown()
        await client.disconnect()
    }
}
