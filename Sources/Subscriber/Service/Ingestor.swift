import Foundation
import WhereaboutsMQTT

/// Turns incoming MQTT messages into store updates: routes the topic to a member, decodes and
/// validates the payload, and applies it, or counts and logs the rejection.
package struct Ingestor: Sendable {
    let store: CircleViewStore
    let router: TopicRouter
    let decoder: MessageDecoder
    /// Where accepted locations and transitions are handed for the history; `nil`: none kept.
    let history: HistoryRecorder?
    /// Where stamped reports are noted for receipts (docs/receipts.md); `nil`: no receipts.
    var receipts: ReceiptIntake?
    /// Whether messages of devices that are no member of this instance's circles are expected
    /// (a wildcard subscription, ``SubscriberConfiguration/subscription``) and dropped without
    /// counting them as rejections.
    var expectsOtherDevices = false

    /// Creates an ingestor feeding `store`.
    package init(store: CircleViewStore, router: TopicRouter, settings: ViewSettings) {
        self.init(store: store, router: router, settings: settings, history: nil)
    }

    /// Creates an ingestor feeding `store` that also hands accepted locations and transitions
    /// to `history` (without waiting for it).
    init(store: CircleViewStore, router: TopicRouter, settings: ViewSettings, history: HistoryRecorder?) {
        self.store = store
        self.router = router
        self.decoder = MessageDecoder(settings: settings)
        self.history = history
    }

    /// Handles one message received at `now`.
    @discardableResult
    package func handle(_ message: MQTTMessage, at now: Date = Date()) async -> CircleViewStore.ApplyOutcome? {
        await store.ingest(message, router: router, decoder: decoder, history: history, receipts: receipts, at: now)
    }

    /// Handles every message of `messages` until it ends or the task is cancelled. The loop runs
    /// on the store's actor, so a message costs no hop between executors.
    package func run<Messages: AsyncSequence & Sendable>(_ messages: Messages) async throws
    where Messages.Element == MQTTMessage {
        try await store.ingestAll(
            messages, router: router, decoder: decoder, history: history, receipts: receipts, expectsOtherDevices: expectsOtherDevices)
    }
}
