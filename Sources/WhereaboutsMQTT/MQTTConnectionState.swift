/// Where an `MQTTClient`'s connection to the broker stands.
public enum MQTTConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Trying to establish the first connection.
    case connecting
    /// Connected; `sessionPresent` tells whether the broker resumed a persistent session.
    case connected(sessionPresent: Bool)
    /// The connection was lost (or not yet made, after `start()`); the client retries after a
    /// backoff. `attempt` counts failed attempts since the last success; `lastError` says why the
    /// last one failed.
    case reconnecting(attempt: Int, lastError: MQTTError?)
    /// Not connected and not trying: see the reason.
    case disconnected(MQTTDisconnectReason)

    /// Whether the client is connected right now.
    package var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// Whether the client lost its connection (or has not made it yet, after `start()`) and is
    /// retrying.
    package var isReconnecting: Bool {
        if case .reconnecting = self { return true }
        return false
    }

    /// A short human-readable summary such as `reconnecting (attempt 3: ...)`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected(let present): present ? "connected (session resumed)" : "connected"
        case .reconnecting(let attempt, let error):
            "reconnecting (attempt \(attempt)\(error.map { ": \($0.description)" } ?? ""))"
        case .disconnected(let reason): "disconnected (\(reason))"
        }
    }
}
