import CMosquitto
import Foundation
import Logging

/// The session behind libmosquitto's userdata pointer. Valid in every callback: the session
/// thread keeps the session alive until after `mosquitto_destroy`.
private func session(_ userdata: UnsafeMutableRawPointer?) -> MosquittoSession {
    Unmanaged<MosquittoSession>.fromOpaque(userdata!).takeUnretainedValue()
}

extension MosquittoSession {
    /// Registers the C callbacks. They run on the session thread (`mosquitto_loop`), except the
    /// log callback, which may also run on a thread calling publish or subscribe.
    func installCallbacks() {
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, flags, _ in
            session(userdata).didConnect(code: rc, sessionPresent: flags & 1 != 0)
        }
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reasonCode, _ in
            session(userdata).didAcknowledge(mid, .published(reasonCode: reasonCode))
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, userdata, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            session(userdata).didAcknowledge(mid, .subscribed(granted: codes))
        }
        mosquitto_unsubscribe_v5_callback_set(handle) { _, userdata, mid, _ in
            session(userdata).didAcknowledge(mid, .unsubscribed)
        }
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, _ in
            guard let message = message?.pointee, let topic = message.topic else { return }
            let payload = message.payload.map { Data(bytes: $0, count: Int(message.payloadlen)) } ?? Data()
            session(userdata).hub.deliver(
                MQTTMessage(
                    topic: String(cString: topic), payload: payload,
                    qos: QoS(rawValue: Int(message.qos)) ?? .atMostOnce, retained: message.retain))
        }
        setLibraryLogging(true)
    }

    /// Turns libmosquitto's log callback on or off. libmosquitto formats a log line for every
    /// packet while a callback is set, which costs real throughput, so the session keeps it on
    /// only while connecting (where it carries the TLS error details) unless the logger wants
    /// trace output. Called on the session thread, or before it starts.
    func setLibraryLogging(_ enabled: Bool) {
        if enabled || logger.logLevel <= .trace {
            mosquitto_log_callback_set(handle) { _, userdata, level, text in
                guard let text else { return }
                session(userdata).didLog(level: level, text)
            }
        } else {
            mosquitto_log_callback_set(handle, nil)
        }
    }

    private func didConnect(code: Int32, sessionPresent: Bool) {
        guard code == 0 else {
            let refused = MQTTError.connectionRefused(
                MosquittoCode.refusal(code, sentCredentials: configuration.credentials != nil))
            state.withLock { $0.brokerRefused(refused) }
            logger.info("MQTT broker refused the connection", metadata: ["whereabouts.mqtt.error": "\(refused)"])
            return
        }
        setLibraryLogging(false)
        state.withLock { $0.brokerAccepted() }
        restoreSubscriptions(sessionPresent: sessionPresent)
        logger.info(
            "MQTT connected",
            metadata: [
                "whereabouts.mqtt.host": "\(configuration.host):\(configuration.port)",
                "whereabouts.mqtt.session_present": "\(sessionPresent)",
            ])
        hub.setConnectionState(.connected(sessionPresent: sessionPresent), from: id)
        // Only now may `connect()` return: its callers read `state` right after.
        let waiters = state.withLock { $0.connectionAnnounced() }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// Subscribes again after a reconnect: everything when the broker kept no session, else only
    /// what the broker never acknowledged.
    private func restoreSubscriptions(sessionPresent: Bool) {
        for subscription in hub.subscriptions where !sessionPresent || !subscription.acknowledged {
            let rc = mosquitto_subscribe_v5(handle, nil, subscription.filter, Int32(subscription.qos.rawValue), 0, nil)
            if rc != MosquittoCode.success {
                logger.warning(
                    "MQTT resubscription failed",
                    metadata: ["whereabouts.mqtt.filter": "\(subscription.filter)", "whereabouts.mqtt.error": "\(MosquittoCode.text(rc))"])
            } else {
                logger.debug("MQTT resubscribed", metadata: ["whereabouts.mqtt.filter": "\(subscription.filter)"])
            }
        }
    }

    private func didAcknowledge(_ mid: Int32, _ ack: Ack) {
        let waiter = state.withLock { $0.acks.acknowledge(mid, ack) }
        waiter?.continuation.resume(returning: ack)
    }

    private func didLog(level: Int32, _ text: UnsafePointer<CChar>) {
        if level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 {
            let message = String(cString: text)
            state.withLock { $0.libraryLogged(message) }
        }
        if logger.logLevel <= .trace { logger.trace("libmosquitto: \(String(cString: text))") }
    }
}
