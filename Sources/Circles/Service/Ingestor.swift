import Foundation

/// Turns incoming MQTT messages into store updates: routes the topic to a member, decodes and
/// validates the payload, and applies it, or counts and logs the rejection.
public struct Ingestor: Sendable {
    let store: CircleViewStore
    let router: TopicRouter
    let decoder: MessageDecoder

    /// Creates an ingestor feeding `store`.
    public init(store: CircleViewStore, router: TopicRouter, settings: ViewSettings) {
        self.store = store
        self.router = router
        self.decoder = MessageDecoder(settings: settings)
    }

    /// Handles one message received at `now`.
    @discardableResult
    public func handle(_ message: TransportMessage, at now: Date = Date()) async -> CircleViewStore.ApplyOutcome? {
        guard let route = router.route(message.topic) else {
            await store.reject(.unknownTopic, topic: message.topic)
            return nil
        }
        if route.subtopic == "cmd" { return nil }  // commands to the device, not news from it
        let inbound: InboundMessage
        do {
            inbound = try decoder.decode(message.payload, now: now)
        } catch {
            // An empty retained payload clears a retained message; it carries no news.
            if message.payload.isEmpty { return nil }
            await store.reject(error, topic: message.topic)
            return nil
        }
        return await store.apply(inbound, from: route.member, retained: message.retained, at: now)
    }
}
