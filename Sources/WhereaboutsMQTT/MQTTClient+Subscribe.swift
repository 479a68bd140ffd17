import CMosquitto

extension MQTTClient {
    /// Subscribes to topic filters, each with its own QoS, and returns once the broker granted
    /// them (SUBACK).
    ///
    /// The client remembers the filters and subscribes again after every reconnect (after the
    /// broker lost or never had the session), checking every SUBACK. When not connected it only
    /// remembers them and returns; they are sent on (re)connection.
    ///
    /// A filter the broker refuses (a SUBACK failure code: MQTT 5 says why, e.g. "not
    /// authorized"; MQTT 3.1.1 only says 0x80) or leaves unanswered is logged as an error,
    /// counted (``subscriptionFailures``), and subscribed again with the reconnect policy's
    /// backoff until it is granted, unsubscribed, or the client stops; meanwhile it is listed in
    /// ``ungrantedSubscriptions``. This call throws `MQTTError.subscriptionRefused` for a refusal
    /// and `.timedOut` for a missing SUBACK (the retries go on regardless),
    /// `.invalidArgument` for a malformed filter, `.connectionLost` (the filters are restored on
    /// reconnect).
    public func subscribe(to filters: [(filter: String, qos: QoS)], timeout: Duration? = nil) async throws {
        hub.addSubscriptions(filters)
        guard let session = try? activeSession() else { return }
        let timeout = timeout ?? configuration.operationTimeout
        for (filter, qos) in filters {
            let ack: Ack
            do {
                ack = try await session.perform(
                    .subscribe, timeout: timeout, stillQueuedOnGiveUp: false, subject: filter
                ) { handle, mid in
                    mosquitto_subscribe_v5(handle, mid, filter, Int32(qos.rawValue), 0, nil)
                }
            } catch MQTTError.notConnected {
                continue  // remembered; sent when the connection is back
            } catch MQTTError.timedOut(let operation, let after, let may) {
                session.subscriptionUnanswered(filter, after: after)
                throw MQTTError.timedOut(operation, after: after, mayStillBeDelivered: may)
            }
            guard case .subscribed(let granted) = ack else { continue }
            if let refusal = session.subscriptionAnswered(filter, code: granted.first) { throw refusal }
        }
    }

    /// Subscribes to one topic filter; see `subscribe(to:timeout:)`.
    /// Subscribes to one topic filter; see `subscribe(to:timeout:)`.
    public func subscribe(to filter: String, qos: QoS = .atLeastOnce, timeout: Duration? = nil) async throws {
        try await subscribe(to: [(filter, qos)], timeout: timeout)
    }

    /// The filters subscribed to that the broker has not granted: waiting for their SUBACK, for
    /// the connection, or for their next attempt after a refusal. Empty once every subscription
    /// is in force.
    public var ungrantedSubscriptions: [String] {
        hub.subscriptions.filter { !$0.acknowledged }.map(\.filter)
    }

    /// Failed subscription attempts since the client was made, by reason: a SUBACK failure's
    /// ``MQTTReasonCode/name`` (`not_authorized`, `unspecified` for MQTT 3.1.1's 0x80, ...) or
    /// `no_answer` when no SUBACK came within the operation timeout. Each one was logged as an
    /// error and is retried with backoff.
    public var subscriptionFailures: [String: Int] { hub.subscriptionFailures }

    /// Unsubscribes from topic filters and returns once the broker confirmed (UNSUBACK). The
    /// filters are forgotten at once, so they are not restored after a reconnect.
    public func unsubscribe(from filters: [String], timeout: Duration? = nil) async throws {
        hub.removeSubscriptions(filters)
        guard let session = try? activeSession() else { return }
        for filter in filters {
            do {
                _ = try await session.perform(
                    .unsubscribe, timeout: timeout ?? configuration.operationTimeout, stillQueuedOnGiveUp: false,
                    subject: filter
                ) { handle, mid in
                    mosquitto_unsubscribe_v5(handle, mid, filter, nil)
                }
            } catch MQTTError.notConnected {
                continue  // nothing to undo on the broker side until the next connection
            }
        }
    }
}
