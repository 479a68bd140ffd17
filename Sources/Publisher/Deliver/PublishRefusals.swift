#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import WhereaboutsMQTT

/// The reports the broker refused outright, as the drainer meets them.
///
/// Under MQTT 5 (mosquitto) a PUBACK can say "not authorized" (the broker's ACL denies this
/// account the topic), "quota exceeded", "payload format invalid" ...: the report was not
/// delivered, and libmosquitto does not send it again. The drainer keeps it in the outbox like any
/// failed report; this type makes the refusal visible and paces the retries:
///
/// - each refusal is counted by reason (`whereabouts_pub_publish_refused_total{reason}`);
/// - an error is logged naming the topic, the account and what to do, once per refused window;
/// - the pause before the next try doubles with each window refused in a row, from the
///   drainer's retry delay up to ``maximumPause``, so an ACL that stays wrong costs one attempt a
///   minute rather than one a second; a window without a refusal resets it.
///
/// An MQTT 3.1.1 broker (NATS) cannot refuse a publish this way: it acknowledges a denied one as
/// if delivered (docs/mqtt.md, "MQTT 5").
struct PublishRefusals {
    /// The longest pause between two tries of a refused report.
    static let maximumPause = Duration.seconds(60)

    private let metrics: PublisherMetrics
    private let logger: Logger
    private let retryDelay: Duration
    /// Windows in a row with at least one refusal.
    private var refusedInARow = 0

    /// Creates the tracker; `retryDelay` is the pause after an ordinary failure and the first
    /// pause after a refusal.
    init(metrics: PublisherMetrics, logger: Logger, retryDelay: Duration) {
        self.metrics = metrics
        self.logger = logger
        self.retryDelay = retryDelay
    }

    /// Counts and logs the refusals among one window's outcomes (`PublishWindow.send`); returns
    /// how long the drainer pauses before it tries the failed reports again.
    mutating func review(_ sent: [PublishWindow.Sent]) -> Duration {
        var logged = Set<String>()
        var refused = false
        for item in sent {
            guard case .publishRefused(let topic, let reason, let username)? = item.error as? MQTTError else { continue }
            refused = true
            metrics.publishRefused(reason: reason.name)
            guard logged.insert("\(topic) \(reason.rawValue)").inserted else { continue }
            logger.error("\(Self.message(topic: topic, reason: reason, username: username))", metadata: [
                "whereabouts.topic": "\(topic)", "whereabouts.mqtt.user": "\(username ?? "(anonymous)")",
                "whereabouts.mqtt.reason": "\(reason.name)", "whereabouts.mqtt.reason_code": "0x\(String(reason.rawValue, radix: 16))",
                "whereabouts.retry_in": "\(pause(after: refusedInARow + 1))",
            ])
        }
        guard refused else {
            refusedInARow = 0
            return retryDelay
        }
        refusedInARow += 1
        return pause(after: refusedInARow)
    }

    /// The pause after `windows` refused windows in a row: the retry delay, doubled each time,
    /// at most ``maximumPause``.
    private func pause(after windows: Int) -> Duration {
        let factor = 1 << min(max(windows - 1, 0), 16)
        return min(retryDelay * factor, max(retryDelay, Self.maximumPause))
    }

    /// The log line: what happened, that the report is kept, and what to do.
    static func message(topic: String, reason: MQTTReasonCode, username: String?) -> String {
        let account = username.map { "user '\($0)'" } ?? "an anonymous client"
        if reason == .notAuthorized {
            return "The broker's ACL does not let \(account) publish to '\(topic)'; the report stays in the outbox and is tried again. "
                + "Check the broker's access control for this account: whereabouts-sub acl (ACL file) or whereabouts-sub dynsec (dynamic security) write it from the circles file, and the topic's user and device names must match it exactly."
        }
        return "The broker refused the report of \(account) to '\(topic)': \(reason); the report stays in the outbox and is tried again. \(reason.advice)"
    }
}
