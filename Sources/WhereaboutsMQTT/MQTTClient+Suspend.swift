extension MQTTClient {
    /// Stops taking messages from the broker for a while: sends DISCONNECT (no will; the broker
    /// keeps a persistent session and queues its QoS 1/2 messages) and closes the connection, but
    /// unlike ``disconnect()`` keeps every `messages` sequence open and the subscriptions
    /// recorded. ``start()`` connects again; the subscriptions are restored and the broker
    /// delivers what it queued. Operations waiting meanwhile fail with `MQTTError`.
    public func suspend() async {
        guard let session = try? activeSession(), !session.isStopping else { return }
        session.requestStop(.requested)
        await session.waitForExit(timeout: .seconds(5))
    }
}
