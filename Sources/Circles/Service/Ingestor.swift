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
        await store.ingest(message, router: router, decoder: decoder, at: now)
    }

    /// Handles every message of `messages` until it ends or the task is cancelled. The loop runs
    /// on the store's actor, so a message costs no hop between executors.
    public func run<Messages: AsyncSequence & Sendable>(_ messages: Messages) async throws
    where Messages.Element == TransportMessage {
        try await store.ingestAll(messages, router: router, decoder: decoder)
    }
}

extension CircleViewStore {
    /// Routes, decodes, validates and applies one message; see ``Ingestor``.
    func ingest(_ message: TransportMessage, router: TopicRouter, decoder: MessageDecoder, at now: Date) -> ApplyOutcome? {
        guard let route = router.route(message.topic) else {
            reject(.unknownTopic, topic: message.topic)
            return nil
        }
        if route.subtopic == "cmd" { return nil }  // commands to the device, not news from it
        var inbound: InboundMessage
        do {
            inbound = try decoder.decode(message.payload, now: now)
            if case .ignored("encrypted") = inbound {  // OwnTracks encryption: decode the plaintext
                switch decrypt(message.payload, from: route.member) {
                case .plaintext(let plaintext): inbound = try decoder.decode(plaintext, now: now)
                case .failed: return nil
                case .noSecret: break  // stays the ignored type `encrypted`
                }
            }
        } catch {
            // An empty retained payload clears a retained message; it carries no news.
            if message.payload.isEmpty { return nil }
            reject(error, topic: message.topic)
            return nil
        }
        return apply(inbound, from: route.member, retained: message.retained, at: now)
    }

    func ingestAll<Messages: AsyncSequence & Sendable>(
        _ messages: Messages, router: TopicRouter, decoder: MessageDecoder
    ) async throws where Messages.Element == TransportMessage {
        for try await message in messages {
            _ = ingest(message, router: router, decoder: decoder, at: Date())
        }
    }
}
