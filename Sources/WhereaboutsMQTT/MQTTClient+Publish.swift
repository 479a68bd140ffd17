import CMosquitto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MQTTClient {
    /// Publishes a message and returns once it is delivered as far as its QoS promises: QoS 0
    /// written to the socket, QoS 1 acknowledged by PUBACK, QoS 2 completed by PUBCOMP.
    ///
    /// Delivery semantics when the connection is missing or drops (libmosquitto keeps QoS 1/2
    /// messages in memory and resends them after a reconnect):
    /// - Not connected when called: throws `MQTTError.notConnected`; for QoS 1/2 its
    ///   `mayStillBeDelivered` is true because the message stays queued and goes out after the
    ///   reconnect (its later acknowledgement is not reported to anyone). With
    ///   `configuration.queuesWhileDisconnected == false` nothing is queued and it is false.
    /// - Connection lost while waiting: a QoS 1/2 publish keeps waiting for the acknowledgement
    ///   that the resend after the reconnect brings; a QoS 0 publish throws `.connectionLost`.
    /// - No acknowledgement within `timeout`: throws `.timedOut` with `mayStillBeDelivered` true
    ///   for QoS 1/2.
    /// - `disconnect()` or release while waiting: throws `.clientClosed` (not delivered later).
    ///
    /// So a caller that must not lose a message (an outbox) keeps it until this returns, and
    /// republishes it after any error; receivers must tolerate the occasional duplicate.
    /// Other errors: `.publishRefused` (MQTT 5 only: the PUBACK or PUBREC carried a failure
    /// reason such as "not authorized"; the message is not delivered and not resent, so a caller
    /// with an outbox keeps it and tries again later), `.invalidArgument` (bad topic, payload too
    /// large), `CancellationError`.
    ///
    /// - Parameters:
    ///   - topic: the topic, without wildcards.
    ///   - payload: the payload bytes.
    ///   - qos: the quality of service.
    ///   - retain: whether the broker keeps it as the topic's last known value.
    ///   - timeout: how long to wait; `nil` uses `configuration.operationTimeout`.
    public func publish(
        to topic: String, payload: Data, qos: QoS = .atLeastOnce, retain: Bool = false,
        timeout: Duration? = nil
    ) async throws {
        let session = try activeSession()
        let ack = try await session.perform(
            .publish, timeout: timeout ?? configuration.operationTimeout, stillQueuedOnGiveUp: qos != .atMostOnce,
            subject: topic
        ) { handle, mid in
            // `withCString`, not the implicit conversion: that copies a short (inline) topic
            // into a heap array on every call; this copies it onto the stack.
            topic.withCString { topic in
                payload.withUnsafeBytes { buffer in
                    mosquitto_publish_v5(handle, mid, topic, Int32(buffer.count), buffer.baseAddress, Int32(qos.rawValue), retain, nil)
                }
            }
        }
        if case .published(let code) = ack, code >= 0x80 {
            throw MQTTError.publishRefused(
                topic: topic, reason: MQTTReasonCode(rawValue: UInt8(truncatingIfNeeded: code)),
                username: configuration.credentials?.username)
        }
    }

    /// Publishes a UTF-8 string; see `publish(to:payload:qos:retain:timeout:)` (Data).
    public func publish(
        to topic: String, payload: String, qos: QoS = .atLeastOnce, retain: Bool = false,
        timeout: Duration? = nil
    ) async throws {
        try await publish(to: topic, payload: Data(payload.utf8), qos: qos, retain: retain, timeout: timeout)
    }
}
