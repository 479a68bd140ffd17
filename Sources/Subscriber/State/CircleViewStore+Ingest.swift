import Foundation
import WhereaboutsMQTT

// The store's write path: what `Ingestor` calls for each MQTT message, run on the store's actor.

/// How ingest notes stamped reports for receipts: the ledger, and whether the status file (rather
/// than nothing) makes a report durable when there is no history (docs/receipts.md).
struct ReceiptIntake: Sendable {
    let ledger: ReceiptLedger
    let statusFile: Bool

    /// The ticket of a report that needs no storing (a rejection): durable at once.
    static let nothingToStore = 0

    /// The ticket of a report applied to the views, when no history row was recorded for it.
    var viewTicket: Int { statusFile ? ledger.statusTicket : Self.nothingToStore }
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
        receipts: ReceiptIntake? = nil, expectsOtherDevices: Bool = false, at now: Date
    ) -> ApplyOutcome? {
        guard let route = router.route(message.topic) else {
            if !expectsOtherDevices { reject(.unknownTopic, topic: message.topic) }
            return nil
        }
        guard let circleIDs = circleIDs(of: route.member) else {
            if !expectsOtherDevices { reject(.unknownTopic, topic: message.topic) }
            return nil
        }
        // An empty retained payload clears a retained message; it carries no news.
        if message.payload.isEmpty { return nil }
        if route.subtopic == "cmd" {  // commands to the device, not news from it
            return apply(.ignored(type: "cmd"), from: route.member, circleIDs: circleIDs, retained: message.retained, at: now)
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
        // A constant: read in place below; a variable's location and fields were copied out.
        let decoded: MessageDecoder.Decoded
        do {
            guard let message = try decode(with: decoder) else { return nil }
            decoded = message
        } catch {
            reject(error, topic: message.topic)
            // Rejected, and covered by the receipt all the same: sent again it would be rejected again.
            if let receipts, let stamp = ReportStamp.read(plaintext ?? Array(message.payload)) {
                receipts.ledger.note(stamp, of: route.member, ticket: ReceiptIntake.nothingToStore)
            }
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
                if let receipts, let stamp = decoded.stamp {
                    receipts.ledger.note(stamp, of: route.member, ticket: ReceiptIntake.nothingToStore)
                }
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
        // The member's state is found once here, for the speed rule and the apply.
        let slot = memberSlot(of: route.member)
        if case .location(let location, _) = decoded.message,
           // The live fix only matters to the implied-speed rule (off by default).
           let outlier = decoder.outliers.violation(
               of: location, afterLivePoint: decoder.outliers.maxImpliedSpeed == nil ? nil : slot.flatMap(livePoint(at:))) {
            reject(outlier, topic: message.topic)
            history?.record(.rejected(route.member, location, reason: outlier.code, receivedAt: now.timeIntervalSince1970))
            if let receipts, let stamp = decoded.stamp {
                receipts.ledger.note(stamp, of: route.member, ticket: ReceiptIntake.nothingToStore)
            }
            return nil
        }
        if !decoded.droppedFields.isEmpty { countDropped(decoded.droppedFields, of: route.member, topic: message.topic) }
        // Nothing added or removed a member since `slot` was found: it is still valid.
        let outcome = apply(decoded.message, from: route.member, circleIDs: circleIDs, retained: message.retained, at: now, slot: slot)
        // Whether a history row was handed over for it, and accepted; `nil`: none was.
        var stored: Bool?
        // A stamped duplicate is handed over too: its receipt must wait until the row is surely
        // committed (the history's key refuses the second copy).
        if let history, outcome == .changed || outcome == .unchanged || (outcome == .duplicate && decoded.stamp != nil) {
            // Accepted: the history keeps it (an older duplicate the views no longer hold is
            // refused by the history's key).
            switch decoded.message {
            case .location(let location, _):
                stored = history.record(.location(route.member, location, receivedAt: now.timeIntervalSince1970))
            case let .transition(event, region, tst):
                stored = history.record(.transition(
                    route.member, event: event, region: region, tst: tst, receivedAt: now.timeIntervalSince1970))
            default:
                break
            }
        }
        if let receipts, let stamp = decoded.stamp, outcome != .notAMember {
            let ticket: Int? = switch stored {
            case true?: history?.lastTicket
            case false?: nil  // the history's backlog is full: not taken in, the publisher sends it again
            case nil: receipts.viewTicket
            }
            receipts.ledger.note(stamp, of: route.member, ticket: ticket)
            if stored == nil, receipts.statusFile { requestStatusWrite() }
            recordDelivery(stamp, of: route.member)
        }
        return outcome
    }

    func ingestAll<Messages: AsyncSequence & Sendable>(
        _ messages: Messages, router: TopicRouter, decoder: MessageDecoder, history: HistoryRecorder?, receipts: ReceiptIntake? = nil,
        expectsOtherDevices: Bool
    ) async throws where Messages.Element == MQTTMessage {
        for try await message in messages {
            _ = ingest(
                message, router: router, decoder: decoder, history: history, receipts: receipts,
                expectsOtherDevices: expectsOtherDevices, at: Date())
        }
    }
}
