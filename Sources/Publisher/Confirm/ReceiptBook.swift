#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import WhereaboutsCore
import WhereaboutsMQTT

/// What the publisher knows about the subscribers that confirm its reports (docs/receipts.md):
/// who announced itself on the receipt topic, and how far each one's receipt reaches in this
/// outbox's epoch.
///
/// The receipt listener feeds it; the drainer reads ``phase(now:)`` and ``coverage`` to decide
/// whether an acknowledged report is deleted (broker only), kept (undecided, receipts), deleted
/// by a receipt, or sent again. State shared by those two tasks, under one `Mutex`.
final class ReceiptBook: Sendable {
    /// Whether receipts are in use for this device.
    enum Phase: Sendable, Equatable {
        /// Not known yet: acknowledged reports are kept, not resent.
        case undecided
        /// No subscriber confirms receipts: the broker's acknowledgement is the best there is.
        case brokerOnly
        /// At least one subscriber announced itself: reports stay until every one confirms them.
        case receipts
    }

    private struct State {
        /// Each announced subscriber's confirmed sequence number in our epoch (0: none yet).
        var confirmed: [String: Int64] = [:]
        /// When the broker acknowledged our subscription to the receipt topic.
        var subscribedAt: ContinuousClock.Instant?
        /// Set once the wait after subscribing passed without any receipt, or the last
        /// announcement was cleared.
        var brokerOnly = false
    }

    private let state = Mutex(State())
    /// The outbox's epoch: receipts of another epoch confirm nothing.
    let epoch: String
    /// The receipt topic of the device, without the subscriber level.
    let topic: String
    /// How long after subscribing a retained receipt may take to arrive.
    let wait: Duration

    /// Creates an empty book for the device's receipt topic `topic`.
    init(epoch: String, topic: String, wait: Duration) {
        self.epoch = epoch
        self.topic = topic
        self.wait = wait
    }

    /// The filter to subscribe to: every subscriber's receipt for the device.
    var filter: String { topic + "/+" }

    /// Records that the broker acknowledged the subscription to ``filter`` now (after every
    /// connect); the decision "broker only" waits ``wait`` from the first one.
    func subscribed(at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if state.subscribedAt == nil { state.subscribedAt = now }
        }
    }

    /// Applies a message on the receipt topic; returns whether it was one (and changed nothing
    /// else). An empty payload clears that subscriber's receipt (it no longer confirms); an
    /// unreadable one is ignored.
    @discardableResult
    func receive(_ message: MQTTMessage) -> Bool {
        let prefix = topic + "/"
        guard message.topic.hasPrefix(prefix) else { return false }
        let subscriber = String(message.topic.dropFirst(prefix.count))
        guard !subscriber.isEmpty, !subscriber.contains("/") else { return false }
        if message.payload.isEmpty {
            state.withLock { state in
                state.confirmed[subscriber] = nil
                if state.confirmed.isEmpty { state.brokerOnly = true }
            }
            return true
        }
        guard let receipt = try? JSONDecoder().decode(ReceiptMessage.self, from: message.payload), receipt.type == "receipt" else {
            return true
        }
        let reach = receipt.epoch == epoch ? max(0, receipt.seq ?? 0) : 0
        state.withLock { state in
            state.confirmed[subscriber] = max(state.confirmed[subscriber] ?? 0, reach)
            state.brokerOnly = false
        }
        return true
    }

    /// Whether receipts are in use, deciding "broker only" once the wait after subscribing passed.
    func phase(now: ContinuousClock.Instant = .now) -> Phase {
        state.withLock { state in
            if !state.confirmed.isEmpty { return .receipts }
            if state.brokerOnly { return .brokerOnly }
            if let since = state.subscribedAt, now - since >= wait {
                state.brokerOnly = true
                return .brokerOnly
            }
            return .undecided
        }
    }

    /// The highest sequence number every announced subscriber confirmed (0 when one has
    /// confirmed nothing yet), or `nil` when none announced itself.
    var coverage: Int64? {
        state.withLock { $0.confirmed.values.min() }
    }

    /// How many subscribers announced themselves for the device.
    var subscriberCount: Int {
        state.withLock { $0.confirmed.count }
    }
}
