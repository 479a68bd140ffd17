#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// What the session does with the answer to a SUBSCRIBE, whoever sent it (`subscribe()` or the
/// session thread restoring and retrying subscriptions): a grant is recorded; a refusal (a SUBACK
/// code >= 0x80, in MQTT 3.1.1 too) or a missing SUBACK is logged as an error, counted, and the
/// filter is tried again after the reconnect policy's backoff, until granted, unsubscribed, or
/// the client stops.
extension MosquittoSession {
    /// Records the SUBACK code for `filter` (its first granted QoS or failure code); returns the
    /// refusal, or `nil` when granted.
    @discardableResult
    func subscriptionAnswered(_ filter: String, code: Int32?) -> MQTTError? {
        guard let code, code >= 0x80 else {
            let failures = hub.markAcknowledged(filter)
            if failures > 0 {
                logger.info(
                    "MQTT subscription granted",
                    metadata: ["whereabouts.mqtt.filter": "\(filter)", "whereabouts.mqtt.failed_attempts": "\(failures)"])
            } else {
                logger.debug("MQTT subscribed", metadata: ["whereabouts.mqtt.filter": "\(filter)"])
            }
            return nil
        }
        let reason = MQTTReasonCode(rawValue: UInt8(truncatingIfNeeded: code))
        let refusal = MQTTError.subscriptionRefused(filter: filter, reason: reason, username: configuration.credentials?.username)
        subscriptionFailed(filter, reason: reason.name, error: "\(refusal)")
        return refusal
    }

    /// Records that `filter` got no SUBACK within `timeout`.
    func subscriptionUnanswered(_ filter: String, after timeout: Duration) {
        subscriptionFailed(filter, reason: "no_answer", error: "the broker sent no SUBACK for '\(filter)' within \(timeout)")
    }

    private func subscriptionFailed(_ filter: String, reason: String, error: String) {
        guard let retry = hub.subscriptionFailed(filter, reason: reason, policy: configuration.reconnect) else { return }
        // A new deadline for the session thread, which may be waiting in `poll` (when this runs
        // on a `subscribe()` caller's thread).
        wakeForNewDeadline()
        logger.error(
            "MQTT subscription not granted; subscribing again later",
            metadata: [
                "whereabouts.mqtt.filter": "\(filter)", "whereabouts.mqtt.reason": "\(reason)",
                "whereabouts.mqtt.user": "\(configuration.credentials?.username ?? "(anonymous)")",
                "whereabouts.mqtt.failed_attempts": "\(retry.failures)",
                "whereabouts.mqtt.retry_in": "\(retry.retryIn)", "whereabouts.error": "\(error)",
            ])
    }
}
