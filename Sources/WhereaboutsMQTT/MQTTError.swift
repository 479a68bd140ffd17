/// Everything that can go wrong talking to an MQTT broker, with what a user needs to fix it.
///
/// Delivery after an error: libmosquitto keeps QoS 1 and QoS 2 messages it has accepted in memory
/// and resends them after a reconnect. So an error with `mayStillBeDelivered == true` means "not
/// acknowledged yet, but it may still arrive": keep the message (the publisher's outbox keeps the
/// row and republishes it; receivers drop the duplicate by its `tst`).
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker answered CONNECT with a refusal (bad credentials, not authorised, ...).
    case connectionRefused(MQTTRefusal)
    /// The broker's host name could not be resolved.
    case dnsFailure(host: String, detail: String)
    /// No connection to the broker could be made, or the broker closed it before accepting it.
    case connectionFailed(host: String, port: Int, detail: String)
    /// Setting up TLS or the TLS handshake failed (certificate not trusted, wrong host name,
    /// unreadable CA/certificate/key file, broker not speaking TLS).
    case tlsFailure(detail: String)
    /// The operation did not complete within `after`.
    case timedOut(MQTTOperation, after: Duration, mayStillBeDelivered: Bool)
    /// The client is not connected to the broker right now (it may be reconnecting).
    case notConnected(mayStillBeDelivered: Bool)
    /// An established connection was lost (keepalive expired, socket closed, broker stopped).
    case connectionLost(detail: String)
    /// `disconnect()` was called or the client was released while the operation waited. The
    /// in-memory queue is gone with it: nothing more will be delivered for this operation.
    case clientClosed
    /// The broker refused a publish: its PUBACK (or PUBREC) carried an MQTT 5 failure reason,
    /// such as ``MQTTReasonCode/notAuthorized`` when its ACL denies `username` the topic. The
    /// message was not delivered and libmosquitto does not send it again; only MQTT 5 can say
    /// so (an MQTT 3.1.1 broker acknowledges a denied publish as if delivered).
    case publishRefused(topic: String, reason: MQTTReasonCode, username: String?)
    /// The broker refused a subscription in its SUBACK (usually its ACL denies `username` read
    /// access). The client keeps the filter and subscribes again with backoff until granted.
    case subscriptionRefused(filter: String, reason: MQTTReasonCode, username: String?)
    /// Something was rejected before it was sent: a malformed topic, a payload too large, a bad
    /// configuration value.
    case invalidArgument(String)
    /// libmosquitto reported an error not covered above.
    case library(code: Int32, detail: String)

    /// Whether the message this error is about may still reach the broker later, because
    /// libmosquitto keeps it queued in memory and resends it after a reconnect.
    package var mayStillBeDelivered: Bool {
        switch self {
        case .timedOut(_, _, let may), .notConnected(let may): may
        default: false
        }
    }

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .connectionRefused(let refusal):
            "The broker refused the connection: \(refusal)."
        case .dnsFailure(let host, let detail):
            "The broker host name '\(host)' could not be resolved (\(detail)). Check the host name and DNS."
        case .connectionFailed(let host, let port, let detail):
            "Could not connect to the broker at \(host):\(port) (\(detail)). Check that the broker runs and the port is right."
        case .tlsFailure(let detail):
            "TLS failed (\(detail)). Check the CA file, the client certificate and key, that the broker's certificate names the host you connect to, and that the port is a TLS listener."
        case .timedOut(let operation, let after, let may):
            "The \(operation.rawValue) did not complete within \(after)."
                + (may ? " The message stays queued in memory and may still be delivered after a reconnect." : "")
        case .notConnected(let may):
            "The client is not connected to the broker."
                + (may ? " The message was queued in memory and may still be delivered after a reconnect." : "")
        case .connectionLost(let detail):
            "The connection to the broker was lost (\(detail))."
        case .clientClosed:
            "The client was disconnected or released before the operation completed; it will not be delivered."
        case .publishRefused(let topic, let reason, let username):
            "The broker refused the publish to '\(topic)' by \(Self.account(username)): \(reason). \(reason.advice)"
        case .subscriptionRefused(let filter, let reason, let username):
            "The broker refused the subscription to '\(filter)' by \(Self.account(username)): \(reason). \(reason.advice)"
        case .invalidArgument(let detail):
            "Invalid argument: \(detail)."
        case .library(let code, let detail):
            "libmosquitto error \(code): \(detail)."
        }
    }

    /// "user 'Eve'" or "an anonymous client".
    private static func account(_ username: String?) -> String {
        username.map { "user '\($0)'" } ?? "an anonymous client"
    }
}
