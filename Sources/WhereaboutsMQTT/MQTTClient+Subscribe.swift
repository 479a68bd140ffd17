import CMosquitto

extension MQTTClient {
    /// Subscribes to topic filters, each with its own QoS, and returns once the broker granted
    /// them (SUBACK).
    ///
    /// The client remembers the filters and subscribes again after every reconnect (after the
    /// broker lost or never had the session). When not connected it only remembers them and
    /// returns; they are sent on (re)connection. Throws `MQTTError.subscriptionRefused` when the
    /// broker refuses a filter (usually its ACL), `.invalidArgument` for a malformed filter,
    /// `.timedOut` or `.connectionLost` (the filters are still restored on reconnect).
    public func subscribe(to filters: [(filter: String, qos: QoS)], timeout: Duration? = nil) async throws {
        hub.addSubscriptions(filters)
        guard let session = try? activeSession() else { return }
        for (filter, qos) in filters {
            let ack: Ack
            do {
                ack = try await session.perform(
                    .subscribe, timeout: timeout ?? configuration.operationTimeout, stillQueuedOnGiveUp: false,
                    subject: filter
                ) { handle, mid in
                    mosquitto_subscribe_v5(handle, mid, filter, Int32(qos.rawValue), 0, nil)
                }
            } catch MQTTError.notConnected {
                continue  // remembered; sent when the connection is back
            }
            if case .subscribed(let granted) = ack, let code = granted.first, code >= 0x80 {
                hub.removeSubscriptions([filter])
                throw MQTTError.subscriptionRefused(filter: filter, reasonCode: Int(code))
            }
            hub.markAcknowledged(filter)
        }
    }

    /// Subscribes to one topic filter; see `subscribe(to:timeout:)`.
    public func subscribe(to filter: String, qos: QoS = .atLeastOnce, timeout: Duration? = nil) async throws {
        try await subscribe(to: [(filter, qos)], timeout: timeout)
    }

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
