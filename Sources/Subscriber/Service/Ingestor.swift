import Foundation
import WhereaboutsMQTT

/// Turns incoming MQTT messages into store updates: routes the topic to a member, decodes and
/// validates the payload, and applies it, or counts and logs the rejection.
public struct Ingestor: Sendable {
    let store: CircleViewStore
    let router: TopicRouter
    let decoder: MessageDecoder
    /// Where accepted locations and transitions are handed for the history; `nil`: none kept.
    let history: HistoryRecorder?
    /// Whether messages of devices that are no member of this instance's circles are expected
    /// (a wildcard subscription, ``SubscriberConfiguration/subscription``) and dropped without
    /// counting them as rejections.
    var expectsOtherDevices = false

    /// Creates an ingestor feeding `store`.
    public init(store: CircleViewStore, router: TopicRouter, settings: ViewSettings) {
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
    public func handle(_ message: MQTTMessage, at now: Date = Date()) async -> CircleViewStore.ApplyOutcome? {
        await store.ingest(message, router: router, decoder: decoder, history: history, at: now)
    }

    /// Handles every message of `messages` until it ends or the task is cancelled. The loop runs
    /// on the store's actor, so a message costs no hop between executors.
    public func run<Messages: AsyncSequence & Sendable>(_ messages: Messages) async throws
    where Messages.Element == MQTTMessage {
        try await store.ingestAll(messages, router: router, decoder: decoder, history: history, expectsOtherDevices: expectsOtherDevices)
    }
}

extension CircleViewStore {
    /// Routes, decodes, validates and applies one message; see ``Ingestor``.
    ///
    /// Topics keep their OwnTracks meaning: only the base topic carries `location` and `lwt`
    /// (a location on a sub-topic never sets the live position), cards come on `<base>/info`
    /// (with a payload limit that fits a 256 KiB face), `<base>/cmd` holds commands to the
    /// device (counted as ignored), transitions come on `<base>/event` or the base topic.
    func ingest(
        _ message: MQTTMessage, router: TopicRouter, decoder: MessageDecoder, history: HistoryRecorder? = nil,
        expectsOtherDevices: Bool = false, at now: Date
    ) -> ApplyOutcome? {
        guard let route = router.route(message.topic) else {
            if !expectsOtherDevices { reject(.unknownTopic, topic: message.topic) }
            return nil
        }
        guard tracks(route.member) else {
            if !expectsOtherDevices { reject(.unknownTopic, topic: message.topic) }
            return nil
        }
        // An empty retained payload clears a retained message; it carries no news.
        if message.payload.isEmpty { return nil }
        if route.subtopic == "cmd" {  // commands to the device, not news from it
            return apply(.ignored(type: "cmd"), from: route.member, retained: message.retained, at: now)
        }
        let limit = route.subtopic == "info" ? max(decoder.maxPayloadBytes, MessageDecoder.maxEncryptedCardPayloadBytes) : nil
        var plaintext: [UInt8]?
        func decode(with decoder: MessageDecoder) throws(MessageRejectionReason) -> MessageDecoder.Decoded? {
            if let plaintext { return try decoder.decodeReporting(plaintext, now: now, limit: limit) }
            let decoded = try decoder.decodeReporting(message.payload, now: now, limit: limit)
            guard case .ignored(type: "encrypted") = decoded.message else { return decoded }
            // OwnTracks encryption: decode the plaintext.
            switch decrypt(message.payload, from: route.member) {
            case .plaintext(let opened):
                plaintext = Array(opened)
                return try decoder.decodeReporting(opened, now: now, limit: limit)
            case .failed: return nil
            case .noSecret: return decoded  // stays the ignored type `encrypted`
            }
        }
        var decoded: MessageDecoder.Decoded
        do {
            guard let message = try decode(with: decoder) else { return nil }
            decoded = message
        } catch {
            reject(error, topic: message.topic)
            if case .futureTimestamp = error, let history, route.subtopic == nil {
                // Kept aside: the same payload read without the future limit.
                var lenient = decoder
                lenient.futureTolerance = Int(Int32.max)
                if case .location(let location, _)? = (try? decode(with: lenient))??.message {
                    history.record(.rejected(route.member, location, reason: error.code, receivedAt: now.timeIntervalSince1970))
                }
            }
            return nil
        }
        switch decoded.message {
        case .location, .lastWill:
            if let subtopic = route.subtopic {
                reject(.wrongTopic(type: decoded.message.typeName, subtopic: subtopic), topic: message.topic)
                return nil
            }
        case .card:
            if route.subtopic != "info" {
                reject(.wrongTopic(type: "card", subtopic: route.subtopic), topic: message.topic)
                return nil
            }
        case .transition, .presence, .ignored:
            break
        }
        if case .location(let location, _) = decoded.message,
           let outlier = decoder.outliers.violation(of: location, after: liveFix(of: route.member)) {
            reject(outlier, topic: message.topic)
            history?.record(.rejected(route.member, location, reason: outlier.code, receivedAt: now.timeIntervalSince1970))
            return nil
        }
        if !decoded.droppedFields.isEmpty { countDropped(decoded.droppedFields, of: route.member, topic: message.topic) }
        let outcome = apply(decoded.message, from: route.member, retained: message.retained, at: now)
        if let history, outcome == .changed || outcome == .unchanged {
            // Accepted: the history keeps it (an older duplicate the views no longer hold is
            // refused by the history's key).
            switch decoded.message {
            case .location(let location, _):
                history.record(.location(route.member, location, receivedAt: now.timeIntervalSince1970))
            case let .transition(event, region, tst):
                history.record(.transition(route.member, event: event, region: region, tst: tst, receivedAt: now.timeIntervalSince1970))
            default:
                break
            }
        }
        return outcome
    }

    func ingestAll<Messages: AsyncSequence & Sendable>(
        _ messages: Messages, router: TopicRouter, decoder: MessageDecoder, history: HistoryRecorder?, expectsOtherDevices: Bool
    ) async throws where Messages.Element == MQTTMessage {
        for try await message in messages {
            _ = ingest(message, router: router, decoder: decoder, history: history, expectsOtherDevices: expectsOtherDevices, at: Date())
        }
    }
}
